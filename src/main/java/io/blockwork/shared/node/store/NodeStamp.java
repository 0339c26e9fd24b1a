package io.blockwork.shared.node.store;

import jakarta.persistence.PrePersist;
import jakarta.persistence.PreRemove;
import jakarta.persistence.PreUpdate;

/**
 * JPA callbacks of every {@link NodeOwned} row: a new row is stamped with the local node, and an
 * update or delete of another node's row is refused. The services check ownership first and answer
 * with a problem naming the node; this is the backstop that keeps a missed check from writing
 * another node's configuration. Hibernate creates it through Spring, which passes the local node.
 */
public class NodeStamp {

    private final LocalNode local;

    public NodeStamp(LocalNode local) {
        this.local = local;
    }

    @PrePersist
    void stamp(NodeOwned row) {
        row.stamp(local.name());
    }

    @PreUpdate
    @PreRemove
    void refuseForeign(NodeOwned row) {
        if (!local.owns(row.getNode())) {
            throw new ForeignRowException(row.getNode());
        }
    }

    /** A write to a row of another node reached the database layer. */
    public static final class ForeignRowException extends IllegalStateException {
        private final String node;

        ForeignRowException(String node) {
            super("the row belongs to node " + node + ", and only that node's instance may change it");
            this.node = node;
        }

        public String node() {
            return node;
        }
    }
}

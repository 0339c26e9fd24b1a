package io.blockwork.shared.node.store;

import jakarta.persistence.Column;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.MappedSuperclass;

/**
 * A configuration row that belongs to one node (column {@code node}, V21__nodes.sql): disks,
 * arrays, mapped devices, exports, pools, volumes and snapshots, and the workload and experiment
 * history (V21_3), thin pools and thin volumes (V21_4). {@link NodeStamp} writes the local node into a new row and refuses to change
 * or delete another node's.
 */
@MappedSuperclass
@EntityListeners(NodeStamp.class)
public abstract class NodeOwned {

    @Column(nullable = false, length = 64)
    private String node;

    /** The node whose instance assembles and changes this object. */
    public String getNode() {
        return node;
    }

    void stamp(String localNode) {
        if (node == null) {
            node = localNode;
        }
    }
}

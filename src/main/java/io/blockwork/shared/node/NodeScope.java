package io.blockwork.shared.node;

import io.blockwork.shared.node.store.LocalNode;
import io.blockwork.shared.node.store.NodeOwned;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import java.util.List;
import org.springframework.stereotype.Component;

/**
 * Which configured objects this instance owns. Instances sharing one database each assemble and
 * change only their own node's rows; the others they list read-only, marked with their node.
 * Features filter their restorables through {@link #local} and check every change with
 * {@link #requireLocal}; {@code NodeStamp} refuses at the database layer what a missed check lets
 * through.
 */
@Component
public class NodeScope {

    private final LocalNode local;

    public NodeScope(LocalNode local) {
        this.local = local;
    }

    public String localNode() {
        return local.name();
    }

    public boolean isLocal(NodeOwned row) {
        return local.owns(row.getNode());
    }

    /** The rows this instance assembles: its own. */
    public <T extends NodeOwned> List<T> local(List<T> rows) {
        return rows.stream().filter(this::isLocal).toList();
    }

    /**
     * {@code row}, if this node owns it; else the 409 {@code other-node} problem naming the owner.
     *
     * @param what the object as the API names it ("disk d1", "array md0")
     */
    public <T extends NodeOwned> T requireLocal(T row, String what) {
        if (!isLocal(row)) {
            throw otherNode(row.getNode(), what);
        }
        return row;
    }

    public static ProblemException otherNode(String node, String what) {
        return new ProblemException(Problem.OTHER_NODE, what + " belongs to node " + node
                + "; this instance (another node) shows it read-only: change it through node " + node
                + "'s service").with("node", node);
    }
}

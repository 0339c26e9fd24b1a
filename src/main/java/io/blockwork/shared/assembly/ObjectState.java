package io.blockwork.shared.assembly;

/**
 * Desired versus actual state of a configured object. Desired is what the database says; actual
 * is whether a live engine object serves it, and if not, why.
 *
 * @param desired always "active" for now (nothing can be configured as stopped yet)
 * @param actual "active", "failed" (assembling it failed), "blocked" (something it needs is not active)
 *               or "other-node" (another node's instance assembles it; this one lists it read-only)
 * @param reason why actual differs from desired; null when they agree
 */
public record ObjectState(String desired, String actual, String reason) {

    public static final String ACTIVE = "active";
    public static final String FAILED = "failed";
    public static final String BLOCKED = "blocked";
    public static final String OTHER_NODE = "other-node";

    public static final ObjectState RUNNING = new ObjectState(ACTIVE, ACTIVE, null);

    public static ObjectState failed(String reason) {
        return new ObjectState(ACTIVE, FAILED, reason);
    }

    public static ObjectState blocked(String reason) {
        return new ObjectState(ACTIVE, BLOCKED, reason);
    }

    /** Another node's object, as this instance sees it. */
    public static ObjectState onNode(String node) {
        return new ObjectState(ACTIVE, OTHER_NODE, "assembled by node " + node + "; read-only here");
    }

    public boolean live() {
        return ACTIVE.equals(actual);
    }
}

package io.blockwork.shared.assembly;

/** Names one configured object of any kind ("disk d1", "array md0", "pool vg0"). */
public record Ref(String kind, String name) {
    @Override
    public String toString() {
        return kind + " " + name;
    }
}

package planted;

/** Planted: an obvious bug, an exception made and never thrown. */
class DroppedException {
    void check(int n) {
        if (n < 0) {
            new IllegalArgumentException("negative: " + n);
        }
    }
}

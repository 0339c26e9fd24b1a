package io.blockwork.engine.dm;

/** The mapped device a table is built for, as its targets see it. */
interface TableOwner {

    /** For tables checked or built without a device. */
    TableOwner NONE = new TableOwner() {
        @Override
        public void event() {}

        @Override
        public boolean noflushSuspending() {
            return false;
        }
    };

    void event();

    boolean noflushSuspending();
}

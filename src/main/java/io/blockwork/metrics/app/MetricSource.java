package io.blockwork.metrics.app;

/** Adds one feature's metrics to a scrape. Called on the scrape's thread; must be quick and read-only. */
public interface MetricSource {
    void collect(MetricFamilies m);
}

package io.blockwork.iostat.app;

/**
 * One second of one device, as {@code iostat -x} would print it. Rates are per second over the
 * second that ended at {@code time}; latencies are completion latencies (submit to completion)
 * of the requests that completed in it, in microseconds, 0 when none did.
 *
 * @param time the second's end, in Unix seconds (uPlot's x values)
 * @param readAwaitUs mean read latency (iostat's {@code r_await})
 * @param inFlight requests in flight at the end of the second
 * @param queueDepth the mean number of requests in flight over the second (iostat's
 *                   {@code aqu-sz}): their summed latencies over the second's length
 * @param errors requests that completed with an error in the second
 */
public record IostatSample(long time, double readIops, double writeIops, double flushIops, double discardIops,
                           double readBytesPerSecond, double writeBytesPerSecond,
                           double readAwaitUs, double readP50Us, double readP99Us,
                           double writeAwaitUs, double writeP50Us, double writeP99Us,
                           double flushP50Us, double flushP99Us,
                           long inFlight, double queueDepth, double errors) {

    /** All requests per second. */
    public double iops() {
        return readIops + writeIops + flushIops + discardIops;
    }
}

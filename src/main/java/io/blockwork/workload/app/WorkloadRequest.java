package io.blockwork.workload.app;

/**
 * A workload as asked for, fio's options by fio's names where it has one; null means fio's
 * default. Sizes in bytes, times in nanoseconds.
 *
 * @param rw read, write, randread, randwrite or randrw
 * @param rwmixread percentage of reads for randrw (50)
 * @param bs bytes per I/O (4096)
 * @param iodepth I/Os each job keeps in flight (1)
 * @param numjobs jobs, each on its own thread and its own region (1)
 * @param offset where job 0's region starts (0)
 * @param size bytes of each job's region (the device, after offset, split between the jobs)
 * @param offsetIncrement distance between consecutive jobs' regions (with size given: 0, every job on
 *                        the same region, as fio; without: the device is split evenly)
 * @param runtime how long each job runs; without runtime and io, one pass over its region
 * @param io bytes each job moves (fio's io_size)
 * @param fsync a flush after every this many writes
 * @param fua FUA on every this many-th write (1: every write, as fio's sync=1)
 * @param verify "crc32c" to write checkable data, check every read and read every written block
 *               back at the end; "none" (default)
 * @param rate each job's bandwidth cap, bytes per second
 * @param rateIops each job's cap in I/Os per second
 * @param seed seeds offsets and data (1)
 * @param destructive confirms that writing to a device that holds data is meant
 */
public record WorkloadRequest(String device, String rw, Integer rwmixread, Long bs, Integer iodepth, Integer numjobs,
                              Long offset, Long size, Long offsetIncrement, Long runtime, Long io, Integer fsync,
                              Integer fua, String verify, Long rate, Long rateIops, Long seed, Boolean destructive) {
}

package io.blockwork.pool.app;

/**
 * What a thin pool has and uses, as {@code lvs} shows a thin pool (Data%, Meta%) and more.
 *
 * @param dataDevice where the data blocks are ({@code <pool>-tdata} when carved from a classic pool)
 * @param metadataDevice where the mappings are ({@code <pool>-tmeta} when carved)
 * @param from the classic pool the data and metadata were carved from; null for devices given by name
 * @param chunkSizeBytes the data block size
 * @param dataBytes the data space; usedDataBytes of it hold blocks of thin volumes and snapshots
 * @param metadataBytes the metadata device's usable size
 * @param virtualBytes the virtual sizes of the pool's volumes and snapshots added up
 * @param overprovisioning virtual bytes per data byte (above 1: more is promised than there is)
 * @param mode rw, out_of_data_space, ro or Fail (the pool's status line)
 * @param discards passdown, nopassdown or ignore
 * @param status the pool's status line as {@code dmsetup status} prints it; null when not active
 */
public record ThinPoolUsage(String dataDevice, String metadataDevice, String from, long chunkSizeBytes, long dataBytes,
                            long usedDataBytes, Double dataPercent, long metadataBytes, long usedMetadataBytes,
                            Double metadataPercent, long virtualBytes, double overprovisioning, String mode,
                            boolean errorWhenFull, String discards, boolean zero, long transactionId, String status) {
}

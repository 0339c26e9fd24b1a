-- md on-disk metadata (issue 17). Arrays made before it have none: their members carry no
-- superblock and their data starts at offset 0, so they keep 'none'. New arrays default to md's
-- v1.2 superblock (the API's default), whose array uuid is stored here so that start-up assembly
-- can tell this array's members from another's; bitmap_chunk_bytes is the internal write-intent
-- bitmap's chunk, null without a bitmap.
ALTER TABLE arrays ADD COLUMN metadata VARCHAR(8) DEFAULT 'none' NOT NULL;
ALTER TABLE arrays ADD COLUMN uuid VARCHAR(35);
ALTER TABLE arrays ADD COLUMN bitmap_chunk_bytes BIGINT;
ALTER TABLE arrays ADD CONSTRAINT arrays_metadata_known CHECK (metadata IN ('none', '1.2'));
ALTER TABLE arrays ADD CONSTRAINT arrays_metadata_uuid CHECK ((metadata = 'none' AND uuid IS NULL) OR (metadata <> 'none' AND uuid IS NOT NULL));
ALTER TABLE arrays ADD CONSTRAINT arrays_bitmap_chunk CHECK (bitmap_chunk_bytes IS NULL OR (bitmap_chunk_bytes >= 4096 AND metadata <> 'none'));

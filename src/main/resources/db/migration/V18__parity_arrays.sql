-- raid4/5/6 (issue 18): the new levels, the stripe cache's size, and whether the array was running
-- when the service last stopped (md's clean/active superblock state).
ALTER TABLE arrays DROP CONSTRAINT arrays_level_known;
ALTER TABLE arrays ADD CONSTRAINT arrays_level_known
    CHECK (level IN ('linear', 'raid0', 'raid1', 'raid10', 'raid4', 'raid5', 'raid6'));
-- raid4/5/6: md's stripe_cache_size, in stripe heads; null for the other levels
ALTER TABLE arrays ADD COLUMN stripe_cache_size INTEGER;
-- true while the array runs; cleared by a clean stop. A parity array found dirty at start-up may
-- have stripes whose data and parity were half written, so it resyncs (md without a bitmap).
ALTER TABLE arrays ADD COLUMN dirty BOOLEAN DEFAULT FALSE NOT NULL;
-- raid4/5/6's write journal (mdadm --write-journal): a block device of any kind the array holds
ALTER TABLE arrays ADD COLUMN journal_device VARCHAR(64);
ALTER TABLE arrays ADD COLUMN journal_kind VARCHAR(16);

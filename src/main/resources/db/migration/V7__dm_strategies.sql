-- The other two selectable mechanisms of a mapped device, fixed at creation: how its mirror
-- targets release their batches (seed 003) and how its snapshot targets lock (seed 004).
ALTER TABLE dm_devices ADD COLUMN batch_dispatch VARCHAR(16) DEFAULT 'explicit' NOT NULL;
ALTER TABLE dm_devices ADD COLUMN snapshot_locking VARCHAR(16) DEFAULT 'fine' NOT NULL;
ALTER TABLE dm_devices ADD CONSTRAINT dm_devices_dispatch_known CHECK (batch_dispatch IN ('explicit', 'timer'));
ALTER TABLE dm_devices ADD CONSTRAINT dm_devices_locking_known CHECK (snapshot_locking IN ('fine', 'global'));

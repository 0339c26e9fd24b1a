-- The slot each member removed from an array last filled, so that mdadm's --re-add puts it back
-- there after a restart too (md finds it in the device's superblock; these members have none).
-- A row goes when the device joins an array again, or with its array.
CREATE TABLE array_former_slots (
    array_id    BIGINT      NOT NULL,
    device_name VARCHAR(64) NOT NULL,
    slot        INTEGER     NOT NULL,
    CONSTRAINT array_former_slots_pk PRIMARY KEY (array_id, device_name),
    CONSTRAINT array_former_slots_array FOREIGN KEY (array_id) REFERENCES arrays (id) ON DELETE CASCADE,
    CONSTRAINT array_former_slots_slot CHECK (slot >= 0)
);

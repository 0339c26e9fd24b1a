-- md raid1's write-mostly member flag (mdadm --write-mostly): reads avoid the member while
-- another in-sync copy can serve them, as for a leg on a remote machine.
ALTER TABLE array_members ADD COLUMN write_mostly BOOLEAN DEFAULT FALSE NOT NULL;

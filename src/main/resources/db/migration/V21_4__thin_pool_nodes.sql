-- Thin pools (V19) and their thin volumes and snapshots belong to one node, as classic pools and
-- volumes do (V21): an instance sharing the database assembles and changes only its own node's
-- thin pools and lists the others read-only. Existing rows belong to the node that migrates.
ALTER TABLE thin_pools ADD COLUMN node VARCHAR(64) DEFAULT '${node_name}' NOT NULL;
ALTER TABLE thin_volumes ADD COLUMN node VARCHAR(64) DEFAULT '${node_name}' NOT NULL;

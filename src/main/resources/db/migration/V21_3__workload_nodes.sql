-- Workload and experiment history (V15) records its node too: each instance sharing a database
-- marks only its own node's rows a crash left 'running' as interrupted at start-up, never a
-- workload another node is running right now. Existing rows belong to the node that migrates.
ALTER TABLE workloads ADD COLUMN node VARCHAR(64) DEFAULT '${node_name}' NOT NULL;
ALTER TABLE experiments ADD COLUMN node VARCHAR(64) DEFAULT '${node_name}' NOT NULL;

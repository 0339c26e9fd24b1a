-- Node identity (issue 21): several Blockwork instances may share one configuration database
-- (PostgreSQL). Every object row records the node that owns it; an instance assembles and
-- changes only its own node's objects and lists the others read-only.

-- One row per node name: the lease that keeps two instances with the same node name off one
-- database. An instance takes it at start-up (inserting the row, or taking over a row that was
-- released or whose heartbeat is older than the lease time), renews heartbeat_at while it runs
-- and sets released on a clean stop. Times are the database's clock, never an instance's.
CREATE TABLE nodes (
    name          VARCHAR(64)   NOT NULL,
    -- a random id per process: a heartbeat renews the lease only if this is still its holder
    instance      VARCHAR(64)   NOT NULL,
    -- where the holder says it runs (host and API port), for people reading the node list
    address       VARCHAR(256)  NOT NULL,
    started_at    TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    heartbeat_at  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    released      BOOLEAN       NOT NULL,
    CONSTRAINT nodes_pk PRIMARY KEY (name)
);

-- Rows that exist already belong to the node that runs this migration: before issue 21 a
-- database had exactly one instance. The default stays, so a row written by hand without a node
-- belongs to that first node too; Blockwork itself always writes the node.
ALTER TABLE disks ADD COLUMN node VARCHAR(64) DEFAULT '${node_name}' NOT NULL;
ALTER TABLE arrays ADD COLUMN node VARCHAR(64) DEFAULT '${node_name}' NOT NULL;
ALTER TABLE dm_devices ADD COLUMN node VARCHAR(64) DEFAULT '${node_name}' NOT NULL;
ALTER TABLE exports ADD COLUMN node VARCHAR(64) DEFAULT '${node_name}' NOT NULL;
ALTER TABLE pools ADD COLUMN node VARCHAR(64) DEFAULT '${node_name}' NOT NULL;
ALTER TABLE volumes ADD COLUMN node VARCHAR(64) DEFAULT '${node_name}' NOT NULL;
ALTER TABLE snapshots ADD COLUMN node VARCHAR(64) DEFAULT '${node_name}' NOT NULL;

-- Remote disks (issue 21): a disk of type 'nbd' is an export of an NBD server, reached by the
-- Java NBD client. uri is nbd://host[:port]/name or nbd+unix:///name?socket=path; connections is
-- how many connections the client opens (the server must offer CAN_MULTI_CONN for more than one).
ALTER TABLE disks DROP CONSTRAINT disks_type_known;
ALTER TABLE disks ADD CONSTRAINT disks_type_known CHECK (type IN ('memory', 'file', 'null', 'nbd'));
ALTER TABLE disks ADD COLUMN uri VARCHAR(4200);
ALTER TABLE disks ADD COLUMN connections INTEGER;
ALTER TABLE disks ADD CONSTRAINT disks_nbd_has_uri CHECK ((type = 'nbd') = (uri IS NOT NULL));

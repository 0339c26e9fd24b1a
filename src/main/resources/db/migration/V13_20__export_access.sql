-- Issue 13: who may reach an export over NBD.
-- tls_required: the export is served over TLS only (NBD_OPT_STARTTLS first).
-- allowed_clients: the client address blocks (CIDR, canonical, separated by single spaces) that
-- may see and use the export; NULL means any client.
ALTER TABLE exports ADD COLUMN tls_required BOOLEAN DEFAULT FALSE NOT NULL;
ALTER TABLE exports ADD COLUMN allowed_clients VARCHAR(4096);

-- An export that asked for raw access: it writes a device an array or a mapped device holds,
-- which allows that (see Claim in service.device). Kept so a restart claims it the same way.
ALTER TABLE exports ADD COLUMN raw BOOLEAN DEFAULT FALSE NOT NULL;

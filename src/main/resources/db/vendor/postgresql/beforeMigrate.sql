-- Run by Flyway before migrating a PostgreSQL database (the location db/vendor/{vendor}).
-- The migrations are written once for H2 and PostgreSQL; the one function they use that
-- PostgreSQL lacks is H2's BITAND (V5, V6: power-of-two checks), which is its & operator.
CREATE OR REPLACE FUNCTION bitand(a BIGINT, b BIGINT) RETURNS BIGINT
    LANGUAGE sql IMMUTABLE STRICT AS 'SELECT a & b';

package io.blockwork.shared.consistency;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.stereotype.Component;

/**
 * Makes what the configuration database committed durable before an answer leaves: the half of
 * the management durability contract (docs/engine/durability.md) that is the database's.
 *
 * <p>H2 (MVStore) writes a commit to its file when the commit returns only with
 * {@code WRITE_DELAY=0} (the data source URL sets it; H2's default is to write up to 500 ms later),
 * and it never fsyncs on commit: the file is in the page cache, which survives kill -9 but not a
 * power cut. {@code CHECKPOINT SYNC} stores pending changes and forces the file to stable storage.
 * A server database that fsyncs its own commits (PostgreSQL with its defaults) needs nothing here.
 */
@Component
public class DurableCommits {

    private final DataSource dataSource;
    /** Null until the first sync asks the database what it is. */
    private volatile Boolean h2;

    public DurableCommits(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** Returns once every transaction committed so far is on stable storage. */
    public void sync() {
        try (Connection c = dataSource.getConnection()) {
            Boolean isH2 = h2;
            if (isH2 == null) {
                isH2 = "H2".equals(c.getMetaData().getDatabaseProductName());
                h2 = isH2;
            }
            if (isH2) {
                try (Statement s = c.createStatement()) {
                    s.execute("CHECKPOINT SYNC");
                }
            }
        } catch (SQLException e) {
            throw new DataAccessResourceFailureException("cannot make the configuration database durable", e);
        }
    }
}

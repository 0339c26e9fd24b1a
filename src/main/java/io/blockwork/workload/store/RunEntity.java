package io.blockwork.workload.store;

import io.blockwork.shared.node.store.NodeOwned;
import jakarta.persistence.Column;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.MappedSuperclass;
import java.time.Instant;

/**
 * A run that starts, ends once and keeps its outcome: a workload or a seed experiment (the same
 * columns in both tables, V15__workloads.sql).
 */
@MappedSuperclass
public abstract class RunEntity extends NodeOwned {

    /** The longest error text kept (the column's length). */
    private static final int ERROR_LENGTH = 4096;

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(nullable = false, length = 16)
    private String state;

    @Column(name = "started_at", nullable = false)
    private Instant startedAt;

    @Column(name = "ended_at")
    private Instant endedAt;

    @Column(length = 1000000)
    private String result;

    @Column(length = ERROR_LENGTH)
    private String error;

    protected RunEntity() {
        // for JPA
    }

    protected RunEntity(Instant startedAt) {
        this.state = RunState.RUNNING.label();
        this.startedAt = startedAt;
    }

    /** Records how the run ended. */
    public void end(RunState how, Instant at, String resultJson, String errorText) {
        this.state = how.label();
        this.endedAt = at;
        this.result = resultJson;
        this.error = errorText == null || errorText.length() <= ERROR_LENGTH ? errorText
                : errorText.substring(0, ERROR_LENGTH);
    }

    public Long getId() {
        return id;
    }

    public RunState getState() {
        return RunState.of(state);
    }

    public Instant getStartedAt() {
        return startedAt;
    }

    public Instant getEndedAt() {
        return endedAt;
    }

    public String getResult() {
        return result;
    }

    public String getError() {
        return error;
    }
}

package io.blockwork.workload.store;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;
import java.time.Instant;

/** One seed experiment (table {@code experiments}, see V15__workloads.sql). */
@Entity
@Table(name = "experiments")
public class ExperimentEntity extends RunEntity {

    @Column(nullable = false, length = 3)
    private String seed;

    @Column(nullable = false)
    private long seconds;

    protected ExperimentEntity() {
        // for JPA
    }

    public ExperimentEntity(String seed, long seconds, Instant startedAt) {
        super(startedAt);
        this.seed = seed;
        this.seconds = seconds;
    }

    public String getSeed() {
        return seed;
    }

    public long getSeconds() {
        return seconds;
    }
}

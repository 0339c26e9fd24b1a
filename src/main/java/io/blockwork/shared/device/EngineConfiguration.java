package io.blockwork.shared.device;

import io.blockwork.engine.dm.DmConfig;
import io.blockwork.engine.dm.targets.Targets;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The engine configuration of this running service, built once and injected wherever engine
 * objects are built. Mapped devices of every feature (the dm API, volumes, snapshots) are created
 * from one {@link DmConfig}: one set of target types, one I/O timer, and one snapshot origin
 * registry, so that snapshot targets find their origins whichever feature made them (a
 * per-feature configuration would give each feature an origin registry of its own).
 */
@Configuration
class EngineConfiguration {

    @Bean
    DmConfig dmConfig() {
        return Targets.config();
    }
}

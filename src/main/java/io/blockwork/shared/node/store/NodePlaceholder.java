package io.blockwork.shared.node.store;

import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer;
import org.springframework.stereotype.Component;

/**
 * Gives the migrations the local node's name as the placeholder {@code ${node_name}}: V21 stamps
 * the rows that existed before node identity with the node that migrates them.
 */
@Component
class NodePlaceholder implements FlywayConfigurationCustomizer {

    private final LocalNode local;

    NodePlaceholder(LocalNode local) {
        this.local = local;
    }

    @Override
    public void customize(org.flywaydb.core.api.configuration.FluentConfiguration configuration) {
        Map<String, String> placeholders = new HashMap<>(configuration.getPlaceholders());
        placeholders.put("node_name", local.name());
        configuration.placeholders(placeholders);
    }
}

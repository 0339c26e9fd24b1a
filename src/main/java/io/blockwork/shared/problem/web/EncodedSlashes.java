package io.blockwork.shared.problem.web;

import org.apache.tomcat.util.buf.EncodedSolidusHandling;
import org.springframework.boot.tomcat.TomcatConnectorCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A {@code %2F} or {@code %5C} in a path (a device "named" {@code a/b}) is refused as a problem,
 * like every other bad request. Tomcat's default refuses it itself, before any of Blockwork's code runs, with an
 * HTML page; passed through, it reaches Spring Security's firewall, which refuses it too, and the
 * refusal is rendered as problem+json (ProblemSecurityHandlers).
 */
@Configuration(proxyBeanMethods = false)
class EncodedSlashes {

    @Bean
    TomcatConnectorCustomizer encodedSlashesReachTheFirewall() {
        return connector -> {
            connector.setEncodedSolidusHandling(EncodedSolidusHandling.PASS_THROUGH.getValue());
            connector.setEncodedReverseSolidusHandling(EncodedSolidusHandling.PASS_THROUGH.getValue());
        };
    }
}

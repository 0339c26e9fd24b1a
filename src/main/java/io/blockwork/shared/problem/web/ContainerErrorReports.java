package io.blockwork.shared.problem.web;

import io.blockwork.shared.problem.Problem;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;
import org.springframework.boot.tomcat.TomcatContextCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The servlet container's last word on a request none of Blockwork's code got to answer (a path
 * with {@code %00} in it, which Tomcat refuses before it maps the request): a problem+json body,
 * like every other refusal, instead of Tomcat's HTML error page. Requests that reach the
 * application never get here: their errors go through {@link ErrorPageController}.
 */
@Configuration(proxyBeanMethods = false)
class ContainerErrorReports {

    @Bean
    TomcatContextCustomizer problemErrorReports() {
        // the context is already a child of its host, which installs this valve when it starts
        return context -> {
            if (context.getParent() instanceof StandardHost host) {
                host.setErrorReportValveClass(ProblemReportValve.class.getName());
            }
        };
    }

    /** Tomcat's error report valve, writing problem+json. Public: Tomcat instantiates it by class name. */
    public static class ProblemReportValve extends ErrorReportValve {

        @Override
        protected void report(Request request, Response response, Throwable throwable) {
            int status = response.getStatus();
            if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
                return;
            }
            Problem problem = ProblemBodies.forStatus(status);
            String detail = problem.status() < 500 && response.getMessage() != null ? response.getMessage()
                    : problem.title();
            String body = "{\"type\":\"" + problem.type() + "\",\"title\":" + json(problem.title()) + ",\"status\":"
                    + status + ",\"detail\":" + json(detail) + ",\"instance\":" + json(request.getRequestURI())
                    + ",\"code\":\"" + problem.code() + "\"}";
            try {
                response.setContentType("application/problem+json");
                response.setCharacterEncoding(StandardCharsets.UTF_8.name());
                Writer writer = response.getReporter();
                if (writer != null) {
                    writer.write(body);
                    response.finishResponse();
                }
            } catch (IOException | IllegalStateException e) {
                // the client is gone, or the response went out already: nothing more to say
            }
        }

        private static String json(String s) {
            if (s == null) {
                return "null";
            }
            StringBuilder out = new StringBuilder("\"");
            for (char c : s.toCharArray()) {
                switch (c) {
                    case '"' -> out.append("\\\"");
                    case '\\' -> out.append("\\\\");
                    default -> out.append(c < 0x20 ? String.format("\\u%04x", (int) c) : String.valueOf(c));
                }
            }
            return out.append('"').toString();
        }
    }
}

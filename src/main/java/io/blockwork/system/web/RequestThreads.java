package io.blockwork.system.web;

import io.blockwork.system.app.RequestPool;
import io.blockwork.system.app.StallWatch;
import java.util.concurrent.Executor;
import org.apache.tomcat.util.threads.ThreadPoolExecutor;
import org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;

/**
 * HTTP requests run on Tomcat's own pool of platform threads ({@code server.tomcat.threads.max},
 * 200 by default), not on virtual threads.
 *
 * <p>Why. Everything else that must not wait runs on virtual threads: disk I/O, md's sync and
 * metadata daemons, thin copies, the journal's checkpoints. They share a carrier per CPU (two
 * here), and a virtual thread that computes keeps its carrier until it blocks. A request that
 * computes (a huge body to parse, a big listing, a bug) held both carriers in issue 30 and every
 * disk waited behind it. The kernel time-slices platform threads, so such a request now takes its
 * share of the CPU and nothing more. Requests mostly wait for the engine, so 200 threads are
 * plenty; the event streams, which stay open for hours, are async tasks on virtual threads (they
 * only wait) and do not hold one of these.
 *
 * <p>How. With {@code spring.threads.virtual.enabled} Boot hands Tomcat a virtual-thread
 * executor (its customizer runs at order 1); this one runs after it and takes the executor away,
 * so Tomcat builds its platform pool from the {@code server.tomcat.threads} settings. Once the
 * server runs, the pool is handed to the {@link StallWatch}, which reports in health when every
 * thread is busy and requests queue.
 */
@Component
class RequestThreads implements WebServerFactoryCustomizer<ConfigurableTomcatWebServerFactory>, Ordered,
        ApplicationListener<WebServerInitializedEvent> {

    private final StallWatch watch;

    RequestThreads(StallWatch watch) {
        this.watch = watch;
    }

    @Override
    public void customize(ConfigurableTomcatWebServerFactory factory) {
        factory.addProtocolHandlerCustomizers(handler -> handler.setExecutor(null));
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public void onApplicationEvent(WebServerInitializedEvent event) {
        if (event.getWebServer() instanceof TomcatWebServer tomcat) {
            Executor executor = tomcat.getTomcat().getConnector().getProtocolHandler().getExecutor();
            if (executor instanceof ThreadPoolExecutor pool) {
                watch.watch(new Pool(pool));
            }
        }
    }

    private record Pool(ThreadPoolExecutor pool) implements RequestPool {
        @Override
        public int busy() {
            return pool.getActiveCount();
        }

        @Override
        public int max() {
            return pool.getMaximumPoolSize();
        }

        @Override
        public int queued() {
            return pool.getQueue().size();
        }
    }
}

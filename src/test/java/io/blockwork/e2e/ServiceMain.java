package io.blockwork.e2e;

import io.blockwork.BlockworkApplication;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The service as {@link RunningService#startProcess} runs it in a child JVM: the first argument
 * is a file to write the HTTP port to once the service is up, the rest are Spring arguments.
 */
public final class ServiceMain {

    private ServiceMain() {}

    public static void main(String[] args) throws IOException {
        Path portFile = Path.of(args[0]);
        ConfigurableApplicationContext context = new SpringApplicationBuilder(BlockworkApplication.class)
                .run(Arrays.copyOfRange(args, 1, args.length));
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        Path tmp = portFile.resolveSibling(portFile.getFileName() + ".tmp");
        Files.writeString(tmp, Integer.toString(port));
        Files.move(tmp, portFile, StandardCopyOption.ATOMIC_MOVE);
    }
}

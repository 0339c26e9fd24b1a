package io.blockwork.shared.node.store;

import io.blockwork.BlockworkProperties;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.regex.Pattern;
import org.springframework.stereotype.Component;

/**
 * This instance's node: the name its rows carry ({@code blockwork.node-name}, by default the host
 * name) and a random id for this process, which tells two processes with one node name apart.
 */
@Component
public class LocalNode {

    /** Node names: what a host name may hold, up to the column's 64 characters. */
    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    private final String name;
    private final String instance = UUID.randomUUID().toString();

    public LocalNode(BlockworkProperties properties) {
        String configured = properties.nodeName();
        this.name = configured == null || configured.isBlank() ? hostName() : configured.strip();
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("blockwork.node-name '" + name + "' is not a node name: 1 to 64"
                    + " letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
    }

    public String name() {
        return name;
    }

    /** A random id of this process, fresh at every start. */
    public String instance() {
        return instance;
    }

    /** True if a row stamped {@code node} is this node's. */
    public boolean owns(String node) {
        return name.equals(node);
    }

    /** The host name as the system knows it, cut to a valid node name; "localhost" if there is none. */
    static String hostName() {
        String host = null;
        try {
            Path etc = Path.of("/etc/hostname");
            if (Files.isReadable(etc)) {
                host = Files.readString(etc).strip();
            }
        } catch (IOException e) {
            host = null;
        }
        if (host == null || host.isEmpty()) {
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (IOException e) {
                host = "localhost";
            }
        }
        String cleaned = host.replaceAll("[^A-Za-z0-9._-]", "-");
        cleaned = cleaned.length() > 64 ? cleaned.substring(0, 64) : cleaned;
        return NAME.matcher(cleaned).matches() ? cleaned : "localhost";
    }
}

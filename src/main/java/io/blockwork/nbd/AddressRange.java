package io.blockwork.nbd;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A block of client addresses in CIDR notation ({@code 10.1.0.0/16}, {@code fd00::/8}, or one
 * address, {@code 192.0.2.7}, which means /32 or /128). Parsing never consults DNS: only address
 * literals are taken. An IPv4 client that reaches an IPv6 socket as {@code ::ffff:a.b.c.d} is
 * matched as the IPv4 address it is.
 *
 * @param network the first address of the block (no bits set past the prefix)
 * @param prefixLength how many leading bits a client's address must share with {@code network}
 */
public record AddressRange(InetAddress network, int prefixLength) {

    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

    public AddressRange {
        Objects.requireNonNull(network, "network");
        int bits = network.getAddress().length * 8;
        if (prefixLength < 0 || prefixLength > bits) {
            throw new IllegalArgumentException("prefix length /" + prefixLength + " is outside 0.." + bits);
        }
        byte[] a = network.getAddress();
        if (!Arrays.equals(a, mask(a, prefixLength))) {
            throw new IllegalArgumentException(network.getHostAddress() + "/" + prefixLength
                    + " has bits set past the prefix; the block starts at "
                    + text(of(mask(a, prefixLength)), prefixLength));
        }
    }

    /**
     * Parses {@code address[/prefix]}; an IllegalArgumentException says what is wrong, in words a
     * user can act on.
     */
    public static AddressRange parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("an address range must not be empty");
        }
        String s = text.strip();
        int slash = s.indexOf('/');
        String host = slash < 0 ? s : s.substring(0, slash);
        InetAddress address = literal(host, text);
        int bits = address.getAddress().length * 8;
        int prefix = bits;
        if (slash >= 0) {
            String p = s.substring(slash + 1);
            if (!p.matches("\\d{1,3}")) {
                throw new IllegalArgumentException("'" + text + "': the prefix length after '/' must be a number 0.." + bits);
            }
            prefix = Integer.parseInt(p);
        }
        return new AddressRange(address, prefix);
    }

    private static InetAddress literal(String host, String text) {
        try {
            if (host.indexOf(':') >= 0) {
                InetAddress a = Inet6Address.ofLiteral(host.startsWith("[") && host.endsWith("]")
                        ? host.substring(1, host.length() - 1) : host);
                return a;
            }
            if (IPV4.matcher(host).matches()) {
                return Inet4Address.ofLiteral(host);
            }
        } catch (IllegalArgumentException e) {
            // fall through to the message below
        }
        throw new IllegalArgumentException("'" + text + "' is not an IPv4 or IPv6 address or CIDR block "
                + "(for example 192.0.2.0/24, 10.1.2.3 or fd00::/8); host names are not accepted");
    }

    /** Whether a client at {@code address} is inside the block. */
    public boolean contains(InetAddress address) {
        byte[] a = unmapped(address.getAddress());
        byte[] n = network.getAddress();
        return a.length == n.length && Arrays.equals(mask(a, prefixLength), n);
    }

    /** {@code ::ffff:a.b.c.d} as the IPv4 address a.b.c.d; anything else unchanged. */
    private static byte[] unmapped(byte[] a) {
        if (a.length == 16) {
            for (int i = 0; i < 10; i++) {
                if (a[i] != 0) {
                    return a;
                }
            }
            if (a[10] == (byte) 0xff && a[11] == (byte) 0xff) {
                return Arrays.copyOfRange(a, 12, 16);
            }
        }
        return a;
    }

    private static byte[] mask(byte[] a, int prefix) {
        byte[] m = a.clone();
        for (int i = 0; i < m.length; i++) {
            int keep = Math.clamp(prefix - 8L * i, 0, 8);
            m[i] &= (byte) (0xff00 >>> keep);
        }
        return m;
    }

    private static InetAddress of(byte[] a) {
        try {
            return InetAddress.getByAddress(a);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e); // 4 or 16 bytes, always valid
        }
    }

    private static String text(InetAddress a, int prefix) {
        return (a instanceof Inet6Address ? compressed(a.getAddress()) : a.getHostAddress()) + "/" + prefix;
    }

    /** RFC 5952's text for an IPv6 address: the longest run of two or more zero groups becomes "::". */
    private static String compressed(byte[] a) {
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) {
            g[i] = ((a[2 * i] & 0xff) << 8) | (a[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = Math.max(j, i + 1);
        }
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                s.append("::");
                i += bestLength - 1;
                continue;
            }
            if (!s.isEmpty() && s.charAt(s.length() - 1) != ':') {
                s.append(':');
            }
            s.append(Integer.toHexString(g[i]));
        }
        return s.toString();
    }

    /** The canonical form, {@code 10.1.0.0/16} or {@code fd00::/8}. */
    @Override
    public String toString() {
        return text(network, prefixLength);
    }
}

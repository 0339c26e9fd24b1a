package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

@Tag("unit")
class AddressRangeTest {

    @ParameterizedTest
    @CsvSource({
            "10.1.0.0/16,      10.1.255.7,        true",
            "10.1.0.0/16,      10.2.0.1,          false",
            "192.0.2.7,        192.0.2.7,         true",
            "192.0.2.7,        192.0.2.8,         false",
            "0.0.0.0/0,        203.0.113.9,       true",
            "10.0.0.0/8,       ::ffff:10.9.8.7,   true",
            "10.0.0.0/8,       fd00::1,           false",
            "fd00::/8,         fd12:3456::1,      true",
            "fd00::/8,         fe80::1,           false",
            "::1,              ::1,               true",
            "::1,              127.0.0.1,         false",
            "172.16.0.0/12,    172.31.255.255,    true",
            "172.16.0.0/12,    172.32.0.0,        false",
    })
    void containsWhatItsPrefixCovers(String range, String client, boolean inside) {
        assertThat(AddressRange.parse(range).contains(InetAddress.ofLiteral(client))).isEqualTo(inside);
    }

    @ParameterizedTest
    @CsvSource({
            "10.1.0.0/16,         10.1.0.0/16",
            "192.0.2.7,           192.0.2.7/32",
            " 10.0.0.0/8 ,        10.0.0.0/8",
            "FD00:0:0::/8,        fd00::/8",
            "[::1],               ::1/128",
            "2001:db8:0:0:1:0:0:0/80, 2001:db8:0:0:1::/80",
            "2001:db8::/32,       2001:db8::/32",
    })
    void printsItsCanonicalForm(String text, String canonical) {
        assertThat(AddressRange.parse(text)).hasToString(canonical);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "  ", "localhost", "example.org/24", "10.1.2", "10.1.2.3.4", "10.1.2.300",
            "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/", "10.0.0.0/x", "::1/129", "fd00::zz", "10.0.0.0/8/8"})
    void refusesWhatIsNotAnAddressOrBlock(String text) {
        assertThatThrownBy(() -> AddressRange.parse(text)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @CsvSource({"10.1.2.3/16, 10.1.0.0/16", "fd00::1/8, fd00::/8"})
    void refusesHostBitsAndSaysWhereTheBlockStarts(String text, String start) {
        assertThatThrownBy(() -> AddressRange.parse(text)).hasMessageContaining("bits set past the prefix")
                .hasMessageContaining(start);
    }

    @org.junit.jupiter.api.Test
    void neverLooksUpAHostName() {
        assertThatThrownBy(() -> AddressRange.parse("localhost")).hasMessageContaining("host names are not accepted");
    }
}

package io.blockwork.export.app;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The NBD URI an export shows, for each kind of listen address. */
@Tag("unit")
class NbdEndpointTest {

    @Test
    void aSpecificAddressIsTheUrisHost() {
        assertThat(new NbdEndpoint("127.0.0.1", 10809, false).uri("d1", "example.org", false))
                .isEqualTo("nbd://127.0.0.1:10809/d1");
    }

    @Test
    void aWildcardListenerIsReachedByTheHostTheCallerUsed() {
        assertThat(new NbdEndpoint("0.0.0.0", 10809, true).uri("d1", "storage.example.org", false))
                .isEqualTo("nbd://storage.example.org:10809/d1");
    }

    @Test
    void ipv6HostsAreBracketed() {
        assertThat(new NbdEndpoint("::1", 10810, false).uri("vol", null, false)).isEqualTo("nbd://[::1]:10810/vol");
        assertThat(new NbdEndpoint("::", 10810, true).uri("vol", "[fd00::7]", false)).isEqualTo("nbd://[fd00::7]:10810/vol");
        assertThat(new NbdEndpoint("fe80::1%eth0", 10810, false).uri("vol", null, false)).isEqualTo("nbd://[fe80::1]:10810/vol");
    }

    @Test
    void aTlsOnlyExportGetsAnNbdsUri() {
        assertThat(new NbdEndpoint("127.0.0.1", 10809, false).uri("secret", null, true))
                .isEqualTo("nbds://127.0.0.1:10809/secret");
    }
}

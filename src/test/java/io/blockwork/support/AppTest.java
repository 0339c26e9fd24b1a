package io.blockwork.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.boot.webmvc.test.autoconfigure.MockMvcPrint;
import org.springframework.test.context.ContextConfiguration;

/**
 * The whole application behind MockMvc, on a data directory of its own. Test classes with this
 * annotation share one context, so they use device names of their own. Tagged {@code api}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("api")
@SpringBootTest
// Not printing requests: Boot would otherwise keep every request and response body (16 MiB
// writes included) in memory until the test ends, in case it fails.
@AutoConfigureMockMvc(print = MockMvcPrint.NONE, printOnlyOnFailure = false)
@ContextConfiguration(initializers = TempDataDir.class)
public @interface AppTest {
}

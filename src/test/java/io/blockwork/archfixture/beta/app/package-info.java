/** Named, so that alpha's use of it breaks no rule but the cycle. */
@NamedInterface("app")
package io.blockwork.archfixture.beta.app;

import org.springframework.modulith.NamedInterface;

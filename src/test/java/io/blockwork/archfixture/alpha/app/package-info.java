/** Named, so that beta's use of it breaks no rule but the cycle. */
@NamedInterface("app")
package io.blockwork.archfixture.alpha.app;

import org.springframework.modulith.NamedInterface;

/** The fixture's floor: its types are its base package's, which any module may use. */
package io.blockwork.archfixture.shared;

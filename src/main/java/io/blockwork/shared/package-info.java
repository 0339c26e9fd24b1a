/**
 * The floor every feature stands on: the device registry, management operations with undo,
 * start-up assembly, the event hub, problems, units, security and the create-or-confirm contract.
 * Each part is named (its package-info), so that any feature may use it; the floor itself knows
 * no feature, which Modulith checks as the absence of cycles.
 */
package io.blockwork.shared;

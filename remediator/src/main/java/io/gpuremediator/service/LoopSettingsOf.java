package io.gpuremediator.service;

import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.episode.LoopSettings;

/** What the background loop is told of the config: its timing, limits, namespaces, hand-offs and outside stores. */
final class LoopSettingsOf {
  private LoopSettingsOf() {}

  static LoopSettings config(RemediatorConfig config) {
    return new LoopSettings(config.loop().interval(), config.loop().retryDelay(), config.safety().maxDraining(),
        config.leaderElection().namespace(), config.replaceProviders(), config.preflight(), config.safety().page(),
        config.kubernetes().writesInFlight(), config.deferTo(), config.dra(), config.evidenceStore(), config.spares());
  }
}

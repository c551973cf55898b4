package io.gpuremediator.service;

import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.episode.LoopSettings;
import io.gpuremediator.episode.PreflightSettings;

/** What the background loop is told of the config: its timing, limits, namespaces, hand-offs and outside stores. */
final class LoopSettingsOf {
  private LoopSettingsOf() {}

  static LoopSettings config(RemediatorConfig config) {
    return new LoopSettings(config.loop().interval(), config.loop().retryDelay(), config.safety().maxDraining(),
        config.leaderElection().namespace(), config.replaceProviders(), config.preflight().map(p ->
        new PreflightSettings(p.taint(), p.diagnose().image(), p.diagnose().command(), p.diagnose().timeout(),
            p.onFail(), p.maxConcurrent())), config.safety().page(), config.kubernetes().writesInFlight(),
        config.deferTo(), config.dra(), config.evidenceStore());
  }
}

package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuremediator.safety.FleetState;
import io.gpuremediator.safety.FleetState.Breaker;
import io.gpuremediator.safety.FleetState.Incident;
import io.gpuremediator.safety.FleetState.Pause;
import io.gpuremediator.safety.FleetState.Sighting;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class FleetStateCodecTest {
  private static final Instant T = Instant.parse("2026-11-23T10:00:00Z");

  @Test
  void everyFieldSurvivesTheRoundTrip() {
    FleetState s = new FleetState(new Breaker(true, T, "6 nodes"), Optional.of(new Pause("rack 7", T.plusSeconds(600), T, "POST /api/v1/pause from 10.0.0.9")),
        List.of(T), Map.of("gpu-hardware-xid", List.of(T)), Map.of("n1", new Sighting(T.minusSeconds(172_800), T)),
        Map.of("n2", new Sighting(T.minusSeconds(60), T.plusSeconds(5))), List.of(T.minusSeconds(30)),
        Map.of("nvidia.com/gpu.clique=c1", new Incident("nvidia.com/gpu.clique", "c1", T, List.of("a", "b", "c"),
            "3 nodes of nvidia.com/gpu.clique=c1 started faulting within 15m of each other")));
    FleetStateCodec.Stored stored = FleetStateCodec.encode(s);
    assertThat(FleetStateCodec.decode(stored.json(), Optional.of(stored.sightings()))).isEqualTo(s);
    assertThat(stored.json()).as("the breaker and the pause stay readable").contains("\"reason\" : \"6 nodes\"")
        .doesNotContain("\"firing\"");
  }

  @Test
  void todaysStateWithItsSightingsInTheJsonIsRead() {
    FleetState s = FleetStateCodec.decode("{\"v\":1,\"breaker\":{\"open\":true,\"opened_at\":\"2026-11-23T10:00:00Z\","
        + "\"reason\":\"storm\"},\"starts\":[],\"playbook_starts\":{},\"firing\":{\"n1\":{\"started\":"
        + "\"2026-11-23T10:00:00Z\",\"seen\":\"2026-11-23T10:00:00Z\"}},\"acknowledged\":{}}", Optional.empty());
    assertThat(s.breaker().open()).isTrue();
    assertThat(s.firing()).containsExactly(Map.entry("n1", new Sighting(T, T)));
  }

  @Test
  void aStateWrittenBeforeSightingsHadASeenTimeIsRead() {
    FleetState s = FleetStateCodec.decode("{\"v\":1,\"breaker\":{\"open\":false},\"starts\":[],\"playbook_starts\":{},"
        + "\"firing\":{\"n1\":\"2026-11-23T10:00:00Z\"}}", Optional.empty());
    assertThat(s.firing()).containsExactly(Map.entry("n1", new Sighting(T, T)));
    assertThat(s.acknowledged()).isEmpty();
  }

  @Test
  void anUnreadableSightingFailsTheWholeState() {
    assertThatThrownBy(() -> FleetStateCodec.decode("{\"firing\":{\"n1\":{\"started\":\"yesterday\"}}}", Optional.empty()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("fleet state is unreadable: ");
  }
}

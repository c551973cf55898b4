package io.gpuremediator.bench;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.gpuremediator.config.ConfigLoader;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.service.RemediatorService;
import io.gpuremediator.simapi.DraShapes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * Fencing one GPU, from the webhook to its DeviceTaintRule written, against the floor the node quarantine is measured
 * against (the HTTP hop and the three calls of a quarantine made by a bare client), in one run. Half the nodes run the
 * DRA stack (labelled, eight GPUs each in a ResourceSlice of gpu.nvidia.com); each sample posts one reset-class XID
 * with its GPU's UUID to a DRA node, under the shipped playbooks, and times it until a watch of DeviceTaintRules sees
 * the rule. The fence is the loop's work after the webhook's answer: its write of the episode, two reads of the node's
 * slices (the step's start, where the GPU budget is taken, and its look) and the rule's create, where a node quarantine
 * is the write alone. Each sample waits for the episode's next step (the GPU's reset) before the floor sample.
 */
final class FenceLatency {
  /**
   * The fence is the webhook's write, then in the loop the task's record, one read of the node's slices and the rule's
   * create: four calls and a hand-off to the loop's thread, where the floor has three calls and no hand-off.
   */
  static final double TARGET_P50 = 2.5;
  static final double TARGET_P99 = 3.0;

  private FenceLatency() {}

  static void run(Path playbooks, Path work, Path jfr) throws Exception {
    int warmup = 50;
    int samples = 200;
    int n = warmup + samples;
    try (MockApiServer api = MockApiServer.fleet()) {
      KubernetesClient client = api.client();
      for (int i = 0; i < n; i++) {
        dra(client, MockApiServer.nodeName(i));
      }
      // Every selected node's GPUs are counted (the fleet's nodes carry GPU Feature Discovery's nvidia.com/gpu.count):
      // one whose GPUs cannot be counted refuses every fence (gpu_count_unknown, never guessed).
      Map<String, Long> seen = new ConcurrentHashMap<>();
      Watch watch = client.genericKubernetesResources(DraShapes.RULES).watch(new Watcher<>() {
        @Override
        public void eventReceived(Action action, GenericKubernetesResource rule) {
          if (action == Action.ADDED) {
            seen.putIfAbsent(rule.getMetadata().getName(), System.nanoTime());
          }
        }

        @Override
        public void onClose(WatcherException cause) {}
      });
      Path config = work.resolve("fence-remediator.yaml");
      Files.writeString(config, "listen: 127.0.0.1:0\nauth: {insecure_no_auth: true}\nplaybooks: [" + playbooks.toAbsolutePath()
          + "]\nleader_election: {enabled: false}\nsafety: {max_unavailable: 100%, max_unavailable_gpus: 100%,"
          + " max_fenced_per_node: 8, rate_limit: 100000/1h, breaker: {nodes: 100000, window: 10m}}\n" + Bench.LOAD_LIMITS
          + MockApiServer.SELECTOR);
      try (RemediatorService service = new RemediatorService(ConfigLoader.load(config).config().orElseThrow(),
          KubeApi.of(client), Clock.systemUTC())) {
        int port = Bench.awaitReady(service.start());
        List<Double> fence = new ArrayList<>();
        List<Double> floor = new ArrayList<>();
        List<Double> answers = new ArrayList<>();
        List<Double> lists = new ArrayList<>();
        jdk.jfr.Recording recording = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
        for (int i = 0; i < n; i++) {
          if (i == warmup) {
            recording.start(); // the measured samples only
          }
          String node = MockApiServer.nodeName(i);
          int gpu = i % 8;
          String rule = "gpu-remediator." + node + ".gpu-" + gpu;
          long l0 = System.nanoTime();
          client.genericKubernetesResources(DraShapes.SLICES).withField("spec.nodeName", node).withField("spec.driver", "gpu.nvidia.com")
              .list();
          double listTook = (System.nanoTime() - l0) / 1e6;
          long t0 = System.nanoTime();
          double answered = Bench.post(port, Payloads.onGpu(i, gpu, uuid(node, gpu)), "\"reason\":\"actions_applied\"");
          long deadline = t0 + 10_000_000_000L;
          while (!seen.containsKey(rule) && System.nanoTime() < deadline) {
            LockSupport.parkNanos(50_000);
          }
          if (!seen.containsKey(rule)) {
            throw new IllegalStateException("no DeviceTaintRule " + rule + " within 10 s of its webhook");
          }
          double took = (seen.get(rule) - t0) / 1e6;
          Bench.awaitStage(client, node, "repairing");
          double floorTook = Bench.floorQuarantine(client, MockApiServer.nodeName(n + i));
          double hopTook = Bench.post(port, Payloads.single("firing", i).replace("GpuXidHardwareError", "NoSuchAlert"),
              "\"no_playbook\"");
          if (i >= warmup) {
            answers.add(answered);
            lists.add(listTook);
            fence.add(took);
            floor.add(hopTook + floorTook);
          }
        }
        recording.stop();
        recording.dump(jfr);
        recording.close();
        watch.close();
        Samples fenced = Samples.of(fence);
        Samples bare = Samples.of(floor);
        System.out.printf(Locale.ROOT, "%d fences, webhook to DeviceTaintRule seen on a watch: p50 %.1f ms, p99 %.1f ms, max"
            + " %.1f ms; floor (hop + a quarantine's three calls) p50 %.1f ms, p99 %.1f ms%n", fenced.size(), fenced.p50(),
            fenced.p99(), fenced.max(), bare.p50(), bare.p99());
        System.out.printf(Locale.ROOT, "  of which the webhook's answer p50 %.1f ms; one read of a node's slices by a bare client"
            + " p50 %.1f ms (the emulated server filters every slice, as an API server without a watch cache does)%n",
            Samples.of(answers).p50(), Samples.of(lists).p50());
        Bench.ratios("webhook to fence", fenced, bare, TARGET_P50, TARGET_P99);
      }
    }
  }

  /** The GPU's UUID on the node, as its exporter and its DRA driver both name it. */
  private static String uuid(String node, int gpu) {
    return String.format("GPU-%08x-5a5f-aa66-7660-%012d", node.hashCode(), gpu);
  }

  /** Labels the node a DRA node and publishes its eight GPUs as NVIDIA's driver does. */
  private static void dra(KubernetesClient client, String node) {
    Map<Integer, String> uuids = new TreeMap<>();
    for (int gpu = 0; gpu < 8; gpu++) {
      uuids.put(gpu, uuid(node, gpu));
    }
    client.genericKubernetesResources(DraShapes.SLICES).resource(DraShapes.slice(node, uuids, Map.of())).create();
    client.nodes().withName(node).edit(x -> {
      x.getMetadata().getLabels().put("nvidia.com/gpu.deploy.dra-driver", "true");
      return x;
    });
  }
}

package io.gpuremediator.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each package depends only on the packages listed for it: the model at the centre (values, alerts,
 * decisions, ledger, playbooks) knows nothing of the engine, HTTP or Kubernetes; only {@code kube}
 * imports fabric8; only the HTTP edge and the wiring touch Vert.x. Checked on the compiled classes, so
 * fully qualified names and lambdas count as much as imports.
 */
class PackageRulesTest {
  private static final String ROOT = "io.gpuremediator.";
  private static final String[] JDK = {"java..", "javax.."};
  private static final String[] LOGGING = {"org.slf4j.."};
  private static JavaClasses main;

  /** For each package (relative to io.gpuremediator): the other packages and libraries it may use. */
  private static final Map<String, List<String>> ALLOWED = new LinkedHashMap<>();

  static {
    allow("value", "yaml");
    allow("yaml", "org.yaml..");
    allow("alert");
    allow("decision");
    allow("state");
    allow("node", "decision", "state", "yaml");
    allow("playbook", "node", "value", "yaml");
    allow("playbook.load", "action", "playbook", "node", "value", "yaml", "org.yaml..", "org.slf4j..");
    allow("action", "decision", "node", "outbound", "playbook", "state", "value", "workload", "yaml", "org.yaml..");
    allow("outbound", "decision");
    allow("outbound.http", "outbound", "io.vertx..", "org.slf4j..");
    allow("outbound.aws", "outbound", "software.amazon.awssdk..");
    allow("safety", "config", "decision", "node", "state", "value", "org.slf4j..");
    allow("config", "node", "value", "yaml", "org.yaml..");
    allow("metrics", "io.prometheus..");
    allow("http", "alert", "decision", "episode", "metrics", "node", "safety", "state", "value", "yaml", "io.vertx..",
        "com.fasterxml.jackson.core..", "io.prometheus..", "org.slf4j..");
    allow("workload", "node");
    allow("episode", "action", "alert", "decision", "metrics", "node", "outbound", "playbook", "safety", "state", "value",
        "workload", "org.slf4j..");
    allow("kube", "node", "safety", "state", "workload", "io.fabric8..", "com.fasterxml.jackson..", "org.slf4j..");
  }

  private static void allow(String pkg, String... others) {
    List<String> allowed = new ArrayList<>(List.of(JDK));
    allowed.add(ROOT + pkg);
    for (String o : others) {
      allowed.add(o.contains(".") && !o.startsWith("playbook.") ? o : ROOT + o);
    }
    ALLOWED.put(pkg, allowed);
  }

  @BeforeAll
  static void importMainClasses() {
    main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
        .importPackages("io.gpuremediator");
  }

  static List<String> packages() {
    return List.copyOf(ALLOWED.keySet());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("packages")
  void packageDependsOnlyOnWhatItIsAllowed(String pkg) {
    classes().that().resideInAPackage(ROOT + pkg)
        .should().onlyDependOnClassesThat().resideInAnyPackage(ALLOWED.get(pkg).toArray(String[]::new))
        .because(pkg + " may use only " + ALLOWED.get(pkg))
        .check(main);
  }

  @Test
  void onlyKubeImportsFabric8() {
    noClasses().that().resideOutsideOfPackage(ROOT + "kube").should().dependOnClassesThat().resideInAPackage("io.fabric8..")
        .check(main);
  }

  @Test
  void onlyOutboundAwsImportsTheAwsSdk() {
    noClasses().that().resideOutsideOfPackage(ROOT + "outbound.aws").should().dependOnClassesThat()
        .resideInAPackage("software.amazon.awssdk..").check(main);
  }

  @Test
  void nothingButTheCommandLineDependsOnTheWiring() {
    noClasses().that().resideOutsideOfPackages(ROOT + "service", ROOT + "cli").should().dependOnClassesThat()
        .resideInAnyPackage(ROOT + "service", ROOT + "cli")
        .check(main);
  }

  @Test
  void packagesHaveNoCycles() {
    SlicesRuleDefinition.slices().matching("io.gpuremediator.(**)").should().beFreeOfCycles().check(main);
  }
}

package io.gpuremediator.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.InstanceofCheck;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each package depends only on what its {@code package-info.java} says it uses ("Uses: ...; libraries: ..."), and
 * uses all it says: the docs are the allow-lists, read from one place. The model at the centre (values, alerts,
 * decisions, ledger, playbooks) knows nothing of the engine, HTTP or Kubernetes; only {@code kube} imports fabric8;
 * only the HTTP edge and the wiring touch Vert.x. Checked on the compiled classes, so fully qualified names and lambdas
 * count as much as imports.
 */
class PackageRulesTest {
  private static final String ROOT = "io.gpuremediator.";
  private static final Path SRC = Path.of("src/main/java/io/gpuremediator");
  private static final Pattern USES = Pattern.compile("<p>Uses: (.*?); libraries: (.*?)\\.\\s*$", Pattern.DOTALL);
  private static final Pattern CODE = Pattern.compile("\\{@code ([a-z0-9.]+)\\}");
  private static final Set<String> ALWAYS = Set.of("java", "javax");
  private static JavaClasses main;
  /** For each package (relative to io.gpuremediator): the packages of ours and the libraries its package-info names. */
  private static Map<String, Declared> declared;

  private record Declared(Set<String> packages, Set<String> libraries) {}

  @BeforeAll
  static void importMainClasses() {
    main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
        .importPackages("io.gpuremediator");
    declared = readPackageInfos();
  }

  private static Map<String, Declared> readPackageInfos() {
    Map<String, Declared> out = new TreeMap<>();
    try (Stream<Path> files = Files.walk(SRC)) {
      for (Path info : files.filter(p -> p.getFileName().toString().equals("package-info.java")).toList()) {
        String pkg = SRC.relativize(info.getParent()).toString().replace('/', '.');
        String text = Files.readString(info).replaceAll("\\n \\*(?!/)", "");
        Matcher m = USES.matcher(text.substring(0, text.indexOf("*/")));
        assertThat(m.find()).as(info + " says what the package uses: <p>Uses: {@code a}, ...; libraries: {@code b}.")
            .isTrue();
        out.put(pkg, new Declared(codes(m.group(1)), codes(m.group(2))));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static Set<String> codes(String text) {
    Set<String> out = new TreeSet<>();
    Matcher m = CODE.matcher(text);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  static List<String> packages() {
    importMainClasses();
    return List.copyOf(declared.keySet());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("packages")
  void packageDependsOnlyOnWhatItsPackageInfoSays(String pkg) {
    Declared d = declared.get(pkg);
    List<String> allowed = new ArrayList<>(List.of("java..", "javax..", ROOT + pkg));
    d.packages().forEach(p -> allowed.add(ROOT + p));
    d.libraries().forEach(l -> allowed.add(l + ".."));
    classes().that().resideInAPackage(ROOT + pkg)
        .should().onlyDependOnClassesThat().resideInAnyPackage(allowed.toArray(String[]::new))
        .because("package-info.java of " + pkg + " says it uses " + d)
        .check(main);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("packages")
  void packageUsesAllThatItsPackageInfoSays(String pkg) {
    Set<String> usedPackages = new TreeSet<>();
    Set<String> usedTargets = new TreeSet<>();
    for (JavaClass c : main) {
      if (!c.getPackageName().equals(ROOT + pkg)) {
        continue;
      }
      for (Dependency dep : c.getDirectDependenciesFromSelf()) {
        String target = dep.getTargetClass().getPackageName();
        usedTargets.add(target);
        if (target.startsWith(ROOT)) {
          usedPackages.add(target.substring(ROOT.length()));
        }
      }
    }
    usedPackages.remove(pkg);
    Declared d = declared.get(pkg);
    assertThat(usedPackages).as("the packages of ours " + pkg + " uses, as its package-info.java says")
        .containsExactlyInAnyOrderElementsOf(d.packages());
    for (String library : d.libraries()) {
      assertThat(usedTargets).as(pkg + " uses " + library + ", as its package-info.java says")
          .anyMatch(t -> t.equals(library) || t.startsWith(library + "."));
    }
    assertThat(usedTargets).as("the libraries " + pkg + " uses are named in its package-info.java")
        .allMatch(t -> t.startsWith(ROOT) || ALWAYS.contains(t.split("\\.")[0])
            || d.libraries().stream().anyMatch(l -> t.equals(l) || t.startsWith(l + ".")));
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

  /** No two source files need each other, however far round: each can be read, and changed, after what it uses. */
  @Test
  void filesHaveNoCycles() {
    SliceAssignment byFile = new SliceAssignment() {
      @Override
      public SliceIdentifier getIdentifierOf(JavaClass c) {
        String name = c.getName();
        return SliceIdentifier.of(name.contains("$") ? name.substring(0, name.indexOf('$')) : name);
      }

      @Override
      public String getDescription() {
        return "the classes of one source file";
      }
    };
    SlicesRuleDefinition.slices().assignedFrom(byFile).should().beFreeOfCycles().check(main);
  }

  @Test
  void noClassButTheRegistryAsksAStepsTypeWithInstanceof() {
    List<String> asked = new ArrayList<>();
    for (JavaClass c : main) {
      if (c.getName().equals(ROOT + "action.ActionRegistry")) {
        continue;
      }
      for (JavaCodeUnit unit : c.getCodeUnits()) {
        for (InstanceofCheck check : unit.getInstanceofChecks()) {
          JavaClass type = check.getRawType();
          if (type.isAssignableTo(ROOT + "playbook.ActionSpec") && !type.getName().equals(ROOT + "playbook.ActionSpec")) {
            asked.add(unit.getFullName() + " asks instanceof " + type.getName());
          }
        }
      }
    }
    assertThat(asked).as("a step is reached through its kind, never by an instanceof on its spec outside ActionRegistry")
        .isEmpty();
  }
}

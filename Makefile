# GPU Remediator: the only entry points a newcomer needs.
#   make demo    the whole loop on 127.0.0.1, a scripted story printed as a timeline (installs and builds first)
#   make test    every test and check of the project (installs what is missing first)
#   make bench   the benchmarks; prints what it measured
#   make fuzz    a long run of the webhook fuzzer (N payloads, default 100000; SEED=...)
SHELL := /bin/bash
.DEFAULT_GOAL := help

JAR        := remediator/target/remediator.jar
BENCH_JAR  := bench/target/bench.jar
DEMO_JAR   := demo/target/demo.jar
# The offline Kubernetes and prometheus-operator schema validator (npm modules pinned by its package-lock.json).
VALIDATOR  := tools/validate-manifests
# The Grafana dashboard's type check against @grafana/schema (npm modules pinned by its package-lock.json).
DASHBOARD_CHECK := tools/check-dashboard
MVN        := mvn -B -ntp
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Debian packages the build and tests need, by the command that proves each is there.
NEEDS      := javac:openjdk-17-jdk-headless mvn:maven taskset:util-linux \
              prometheus:prometheus promtool:prometheus \
              prometheus-alertmanager:prometheus-alertmanager amtool:prometheus-alertmanager \
              victoria-metrics:victoria-metrics vmalert:victoria-metrics \
              kubectl:kubectl node:nodejs npm:nodejs shellcheck:shellcheck \
              chromium:chromium chromedriver:chromium-driver openssl:openssl

.PHONY: help deps build demo test test-java test-files test-signals test-deploy bench fuzz clean

help:
	@echo "make demo   - install what is missing, build, and play the story on the whole loop (VERBOSE=1: raw webhooks)"
	@echo "make test   - install what is missing, build, run every test and check"
	@echo "make bench  - build and run the benchmarks"
	@echo "make fuzz   - fuzz the webhook endpoint with N payloads (default 100000; SEED=...)"

deps:
	@missing=""; for pair in $(NEEDS); do \
	  command -v "$${pair%%:*}" >/dev/null 2>&1 || missing="$$missing $${pair##*:}"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	$(MVN) -q -DskipTests package

# Simulator, simulated cluster, Prometheus, Alertmanager and the remediator on 127.0.0.1; ends by itself
# within 3 minutes and stops every process it started by PID.
demo: build
	java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -jar $(DEMO_JAR) $(if $(VERBOSE),--verbose)

# The checks of the shipped files (about a minute, mostly one core) run beside the Java build and tests.
test: deps
	$(MAKE) --no-print-directory -j2 test-java test-files

test-files: test-signals test-deploy

# The service: unit tests, mock-API tests, the shaded jar's smoke test; then the shipped files. The Helm chart's
# test (rules-and-deploy/) validates its renders with the offline schema validator, hence its modules. Two modules
# at once where the reactor allows: the end-to-end test (e2e/, mostly waiting on its story) beside rules-and-deploy/.
test-java: deps $(VALIDATOR)/node_modules/.installed
	$(MVN) -T 2 verify
	java -jar $(JAR) validate deploy/playbooks deploy/remediator.example.yaml deploy/base/remediator.yaml deploy/aws/remediator.yaml \
	  deploy/redfish/remediator.yaml
	@# Each provider overlay as deployed: its config and its replace playbooks, with the other shipped playbooks.
	for overlay in karpenter cluster-api; do \
	  java -jar $(JAR) validate deploy/$$overlay/remediator.yaml deploy/$$overlay/9*.yaml deploy/$$overlay/6*.yaml \
	    $(filter-out %/98-gpu-repeat-offender.yaml %/60-neuron-hardware-error.yaml,$(wildcard deploy/playbooks/*.yaml)) \
	    || exit 1; \
	done

# The signals: rules and their unit tests, the scrape config, Alertmanager's config and routing.
test-signals: deps
	promtool check rules rules/*.rules.yml rules/opt-in/*.rules.yml
	promtool test rules rules/tests/*_test.yml
	tools/check-prometheus-config dcgm/prometheus.yml
	amtool check-config alerts/alertmanager.yml
	alerts/tests/run-route-tests

# deploy/: generated files current, NPD checks against recorded nvidia-smi output, shellcheck, and every
# kustomization rendered offline and validated against the Kubernetes and prometheus-operator schemas.
test-deploy: deps $(VALIDATOR)/node_modules/.installed $(DASHBOARD_CHECK)/node_modules/.installed
	deploy/prometheus-operator/generate --check
	deploy/helm/generate --check
	deploy/base/generate-job-policy --check
	$(DASHBOARD_CHECK)/check deploy/grafana/gpu-remediator.json deploy/helm/gpu-remediator/files/gpu-remediator.json
	@for f in $(DASHBOARD_CHECK)/must-fail/*.json; do \
	  if $(DASHBOARD_CHECK)/check "$$f" >/dev/null 2>&1; then echo "dashboard check passed $$f, which must fail"; exit 1; fi; \
	done; echo "dashboard check: every must-fail dashboard refused"
	deploy/npd/tests/run
	shellcheck -x deploy/npd/plugins/*.sh deploy/npd/tests/run deploy/npd/tests/fake/* remediator/src/main/resources/io/gpuremediator/action/gpu-reset.sh remediator/src/main/resources/io/gpuremediator/action/collect-evidence.sh simapi/node-tools/bin/* simapi/node-tools/images/*/bin/* simapi/node-tools/driver/* deploy/prometheus-operator/generate $(DASHBOARD_CHECK)/check \
	  deploy/helm/generate deploy/base/generate-job-policy tools/check-deploy
	tools/check-deploy

$(DASHBOARD_CHECK)/node_modules/.installed: $(DASHBOARD_CHECK)/package-lock.json
	npm ci --prefix $(DASHBOARD_CHECK) --no-audit --no-fund --loglevel=error
	touch $@

$(VALIDATOR)/node_modules/.installed: $(VALIDATOR)/package-lock.json
	npm ci --prefix $(VALIDATOR) --no-audit --no-fund --loglevel=error
	touch $@

bench: build
	java -jar $(BENCH_JAR) $(JAR) deploy/playbooks .bench .

# The webhook fuzzer of make test (a fixed count there), for as long as you like.
N    ?= 100000
SEED ?= 20261123
# It runs with the image's JVM flags (Dockerfile) under the Deployment's memory limit (-XX:MaxRAM), and holds the
# slowest answer under 5 s and the resident memory under that limit.
IMAGE_JVM_FLAGS = $(shell tr -d '\\\n' < Dockerfile | sed -n 's/.*JAVA_TOOL_OPTIONS="\([^"]*\)".*/\1/p')
MEMORY_LIMIT_MI = $(shell sed -n 's/.*limits: {memory: \([0-9]*\)Mi}.*/\1/p' deploy/base/deployment.yaml)
fuzz: deps
	$(MVN) -q -pl remediator test -Dtest=WebhookFuzzMockTest -Dsurefire.failIfNoSpecifiedTests=false \
	  -Dfuzz.count=$(N) -Dfuzz.seed=$(SEED) -Dfuzz.deployed=true \
	  -DargLine="$(IMAGE_JVM_FLAGS) -XX:MaxRAM=$(MEMORY_LIMIT_MI)m"
	@grep -h '^fuzzed [0-9,]* payloads' remediator/target/surefire-reports/*WebhookFuzzMockTest-output.txt

clean:
	$(MVN) -q clean
	rm -rf .bench .demo $(VALIDATOR)/node_modules $(DASHBOARD_CHECK)/node_modules $(DASHBOARD_CHECK)/.gen

# GPU Remediator's container image: `docker build -t ghcr.io/gpu-remediator/remediator:0.1.0 .`
# Stage 1 builds the shaded jar with the project's pinned Maven build; stage 2 is a JRE and that jar only.
FROM maven:3.8.7-eclipse-temurin-17 AS build
WORKDIR /src
COPY pom.xml ./
COPY simapi/pom.xml simapi/
COPY simapi/src simapi/src
COPY remediator/pom.xml remediator/
COPY remediator/src remediator/src
# The parent POM is read from the file system (relativePath), so the other modules need not be copied; the
# emulated API server, a test dependency of the service, is installed first so the test classpath resolves.
RUN mvn -B -ntp -q -f simapi/pom.xml -DskipTests install && mvn -B -ntp -q -f remediator/pom.xml -DskipTests package

FROM eclipse-temurin:17-jre-jammy
# Sized by the Deployment's memory limit (1 GiB: 20,000 selected GPU nodes): heap at most half of it, metaspace and code cache bounded;
# an OutOfMemoryError ends the process so that Kubernetes restarts it rather than it limping on.
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=50.0 -XX:InitialRAMPercentage=25.0 -XX:MaxMetaspaceSize=128m \
 -XX:ReservedCodeCacheSize=64m -Xss512k -XX:+ExitOnOutOfMemoryError -Djava.io.tmpdir=/tmp"
COPY --from=build /src/remediator/target/remediator.jar /opt/gpu-remediator/remediator.jar
# A numeric non-root user, so that runAsNonRoot can verify it; the root filesystem can be read-only.
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["java", "-jar", "/opt/gpu-remediator/remediator.jar"]
CMD ["serve", "--config", "/etc/remediator/config/remediator.yaml"]

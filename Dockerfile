# Blockwork in a container: build with JDK 25 + Maven, run on a JRE 25 as an unprivileged user.
#   docker build -t blockwork .
#   docker run -p 8080:8080 -p 10809:10809 -v blockwork-data:/data blockwork

FROM maven:3.9-eclipse-temurin-25 AS build
WORKDIR /src
COPY pom.xml .
COPY .mvn .mvn
COPY src src
COPY frontend frontend
# Tests run in CI (they need a browser); the image only packages.
RUN --mount=type=cache,target=/root/.m2 mvn -B -ntp -DskipTests package \
    && cp target/blockwork-*.jar /blockwork.jar

FROM eclipse-temurin:25-jre
RUN apt-get update \
    && apt-get install -y --no-install-recommends curl \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system blockwork \
    && useradd --system --gid blockwork --home-dir /data --no-create-home --shell /usr/sbin/nologin blockwork \
    && mkdir /data && chown blockwork:blockwork /data
COPY --from=build /blockwork.jar /opt/blockwork/blockwork.jar

# The data dir holds the H2 database, file disk images and generated credentials.
ENV BLOCKWORK_DATADIR=/data \
    SERVER_ADDRESS=0.0.0.0 \
    BLOCKWORK_NBD_ADDRESS=0.0.0.0
VOLUME /data
USER blockwork
WORKDIR /data
EXPOSE 8080 10809
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD curl -fsS http://127.0.0.1:8080/actuator/health || exit 1
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "--add-modules", "jdk.incubator.vector", "-jar", "/opt/blockwork/blockwork.jar"]

package io.blockwork.shared.openapi;

import io.blockwork.shared.units.ByteSize;
import io.blockwork.shared.units.TimeSpan;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.media.ArraySchema;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import io.swagger.v3.oas.models.servers.Server;
import java.math.BigDecimal;
import java.util.Comparator;
import java.util.List;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springdoc.core.utils.SpringDocUtils;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The OpenAPI document's frame. It is checked in under {@code openapi/}, so nothing in it may
 * depend on the run: the server is "/" and the version is the API's, not the build's.
 */
@Configuration
class OpenApiConfig {

    static {
        // Value types Jackson reads from a number or a string; without this springdoc would
        // describe their Java shape ({"bytes": …}).
        SpringDocUtils.getConfig()
                .replaceWithSchema(ByteSize.class, new Schema<>()
                        .description("Bytes as an integer, or a string with a binary unit: \"512MiB\", \"10GiB\" "
                                + "(B, KiB, MiB, GiB, TiB; K, M, G, T mean the same)")
                        .oneOf(List.of(new IntegerSchema().format("int64").minimum(BigDecimal.ONE),
                                new StringSchema().pattern("^\\s*\\d+(\\.\\d+)?\\s*([bB]|[kKmMgGtT]([iI][bB])?)?\\s*$").example("512MiB"))))
                .replaceWithSchema(TimeSpan.class, new Schema<>()
                        .description("A duration: a string with ns, us, ms or s (\"80us\"), or an integer of nanoseconds")
                        .oneOf(List.of(new StringSchema().example("80us"), new IntegerSchema().format("int64"))));
    }

    @Bean
    OpenAPI blockworkOpenApi() {
        return new OpenAPI()
                .info(new Info().title("Blockwork API").version("v1")
                        .description("Userspace md RAID and device-mapper, managed over HTTP: disks, md arrays, "
                                + "mapped devices, pools, volumes and snapshots, NBD exports, and every block "
                                + "device's data. Errors are RFC 9457 application/problem+json with a stable `code`; "
                                + "see /problems. Sizes are bytes; requests also accept strings with binary units."))
                .servers(List.of(new Server().url("/")))
                .components(new Components().addSecuritySchemes("basic",
                        new SecurityScheme().type(SecurityScheme.Type.HTTP).scheme("basic")))
                .addSecurityItem(new SecurityRequirement().addList("basic"));
    }

    /** Tags in reading order rather than discovery order. */
    private static final List<String> TAG_ORDER = List.of("Disks", "Arrays", "Device-mapper", "Pools", "Volumes",
            "Snapshots", "Devices", "Device I/O", "Exports", "System", "Problems");

    /** Tags in reading order; a tag not listed yet sorts last rather than first. */
    private static int tagRank(String name) {
        int rank = TAG_ORDER.indexOf(name);
        return rank < 0 ? TAG_ORDER.size() : rank;
    }

    /** Every operation can fail with a problem body; say so once, for all of them. */
    @Bean
    OpenApiCustomizer problemResponses() {
        return api -> {
            if (api.getTags() != null) {
                api.getTags().sort(Comparator.comparingInt(t -> tagRank(t.getName())));
            }
            api.getComponents().addSchemas("Problem", new ObjectSchema()
                    .description("RFC 9457 problem details; GET the `type` URI for a description of the problem")
                    .addProperty("type", new StringSchema().format("uri-reference").example("/problems/not-found"))
                    .addProperty("title", new StringSchema())
                    .addProperty("status", new IntegerSchema())
                    .addProperty("detail", new StringSchema())
                    .addProperty("instance", new StringSchema().format("uri-reference"))
                    .addProperty("code", new StringSchema().example("not-found"))
                    .addProperty("field", new StringSchema().description("The request field or parameter at fault"))
                    .addProperty("errors", new ArraySchema().items(new ObjectSchema()
                            .addProperty("field", new StringSchema()).addProperty("detail", new StringSchema()))));
            ApiResponse problem = new ApiResponse().description("A problem: see `code`")
                    .content(new Content().addMediaType("application/problem+json",
                            new MediaType().schema(new Schema<>().$ref("#/components/schemas/Problem"))));
            api.getPaths().values().forEach(path -> path.readOperations()
                    .forEach(op -> op.getResponses().addApiResponse("default", problem)));
        };
    }
}

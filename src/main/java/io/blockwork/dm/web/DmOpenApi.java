package io.blockwork.dm.web;

import io.swagger.v3.oas.models.media.ArraySchema;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import java.math.BigDecimal;
import java.util.List;
import org.springdoc.core.utils.SpringDocUtils;
import org.springframework.context.annotation.Configuration;

/** Describes {@link TableBody} as JSON has it (text or a list of targets) rather than as its Java shape. */
@Configuration
class DmOpenApi {

    static {
        Schema<?> sectors = new IntegerSchema().format("int64").minimum(BigDecimal.ZERO);
        ObjectSchema target = new ObjectSchema();
        target.description("One target: sectors of 512 bytes; args one string or one per argument")
                .addProperty("start", sectors)
                .addProperty("length", sectors)
                .addProperty("target", new StringSchema().example("linear")
                        ._enum(List.of("linear", "striped", "zero", "error", "delay", "flakey", "mirror",
                                "snapshot-origin", "snapshot", "snapshot-merge", "log-writes", "thin-pool", "thin")))
                .addProperty("args", new Schema<>().oneOf(List.of(new StringSchema().example("d1 0"),
                        new ArraySchema().items(new StringSchema()))))
                .required(List.of("start", "length", "target"));
        SpringDocUtils.getConfig().replaceWithSchema(TableBody.class, new Schema<>()
                .description("dmsetup table text (`<start> <length> <target> <args>` per line, `#` comments), "
                        + "or a list of target objects in sector order")
                .oneOf(List.of(new StringSchema().example("0 2048 linear d1 0\n2048 2048 linear d2 0\n"),
                        new ArraySchema().items(target))));
    }
}

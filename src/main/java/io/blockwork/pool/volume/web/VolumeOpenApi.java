package io.blockwork.pool.volume.web;

import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import java.math.BigDecimal;
import java.util.List;
import org.springdoc.core.utils.SpringDocUtils;
import org.springframework.context.annotation.Configuration;

/** Describes {@link SizeChange} as JSON has it (a number or a string, maybe signed) rather than as its Java shape. */
@Configuration
class PoolOpenApi {

    static {
        SpringDocUtils.getConfig().replaceWithSchema(SizeChange.class, new Schema<>()
                .description("The new size: bytes, or a string with a binary unit (\"20GiB\"); with a sign, relative "
                        + "to the current size (\"+5GiB\", \"-1GiB\"). A whole number of 512-byte sectors, rounded up "
                        + "to whole extents")
                .oneOf(List.of(new IntegerSchema().format("int64").minimum(BigDecimal.ONE),
                        new StringSchema().pattern("^\\s*[+-]?\\s*\\d+(\\.\\d+)?\\s*([bB]|[kKmMgGtT]([iI][bB])?)?\\s*$")
                                .example("+5GiB"))));
    }
}

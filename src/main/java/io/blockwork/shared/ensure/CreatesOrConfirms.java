package io.blockwork.shared.ensure;

import io.swagger.v3.oas.annotations.responses.ApiResponse;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** The answers of a create or PUT that goes through {@link Ensure}, for the OpenAPI document. */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ApiResponse(responseCode = "201", description = Ensure.CREATED)
@ApiResponse(responseCode = "200", description = Ensure.CONFIRMED)
@ApiResponse(responseCode = "409", description = Ensure.DIFFERS)
public @interface CreatesOrConfirms {
}

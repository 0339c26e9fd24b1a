package io.blockwork.device.web;

import io.blockwork.shared.device.DeviceIoService;
import io.blockwork.shared.device.TransferBudget;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Holds a {@link TransferBudget} reservation around each read and write of device data, from
 * before its buffer exists until its response has been written (afterCompletion), which is the
 * whole time the buffer is alive, however slowly the client reads. A refused transfer is answered
 * 503 service-busy with Retry-After by the problem advice.
 */
@Configuration(proxyBeanMethods = false)
class TransferBudgetInterceptor implements HandlerInterceptor, WebMvcConfigurer {

    private static final String RESERVATION = TransferBudgetInterceptor.class.getName() + ".reservation";

    private final TransferBudget budget;

    TransferBudgetInterceptor(TransferBudget budget) {
        this.budget = budget;
    }

    @Override
    public void addInterceptors(InterceptorRegistry registry) {
        registry.addInterceptor(this).addPathPatterns("/api/v1/devices/*/data");
    }

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
        long bytes = switch (request.getMethod()) {
            case "GET" -> declared(request.getParameter("length"));
            // an undeclared (chunked) body is read up to the limit
            case "PUT" -> request.getContentLengthLong() >= 0 ? request.getContentLengthLong()
                    : DeviceIoService.MAX_TRANSFER_BYTES;
            default -> 0;
        };
        // more than one request may move is refused by the endpoint itself (413); reserve no more than that
        bytes = Math.min(bytes, DeviceIoService.MAX_TRANSFER_BYTES + 1L);
        request.setAttribute(RESERVATION, budget.reserve(bytes));
        return true;
    }

    @Override
    public void afterCompletion(HttpServletRequest request, HttpServletResponse response, Object handler,
                                Exception ex) {
        if (request.getAttribute(RESERVATION) instanceof TransferBudget.Reservation r) {
            r.close();
        }
    }

    /** A length the endpoint will check itself; one that is not a positive number reserves nothing. */
    private static long declared(String length) {
        try {
            return length == null ? 0 : Math.max(0, Long.parseLong(length));
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}

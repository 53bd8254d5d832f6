import { Controller, Get, Header } from '@nestjs/common';
import { metrics } from './service.metrics';

/** Prometheus text exposition of the process's metrics (public: see the README, Operations). */
@Controller()
export class MetricsController {
  @Get('metrics')
  @Header('content-type', metrics.registry.contentType)
  @Header('cache-control', 'no-store')
  scrape(): Promise<string> {
    return metrics.registry.metrics();
  }
}

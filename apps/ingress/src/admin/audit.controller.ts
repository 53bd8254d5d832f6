import { Controller, Get, Query } from '@nestjs/common';
import { AuditQueries, type AuditEntryItem } from '@wts/application';
import { Access } from '../access/admin-access.config';
import { AuditQueryDto, toAuditFilter } from './dto/audit-query.dto';
import { toPageRequest } from './dto/list-query.dto';
import { listingResponse, type ListingResponse } from './listing.dto';

/** Who did what, newest first: every admin write with its actor, and every refused admin attempt. */
@Controller('admin/audit')
export class AuditController {
  constructor(private readonly audit: AuditQueries) {}

  @Get()
  @Access('viewer', 'audit.list')
  entries(@Query() query: AuditQueryDto): Promise<ListingResponse<'entries', AuditEntryItem>> {
    return listingResponse('entries', this.audit.entries(toAuditFilter(query), toPageRequest(query)));
  }
}

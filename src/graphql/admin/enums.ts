// The admin schema's enums, from the Prisma schema's enums (same names as the public schema).
import {
  ApiKeyType,
  CampaignType,
  CustomerStatus,
  ReferralStatus,
  RewardType,
  TierQualification,
  TierWindow,
} from '../../generated/prisma/enums.js';
import { builder } from './builder.js';

export const CampaignTypeEnum = builder.enumType(CampaignType, { name: 'CampaignType' });
export const RewardTypeEnum = builder.enumType(RewardType, { name: 'RewardType' });
export const CustomerStatusEnum = builder.enumType(CustomerStatus, { name: 'CustomerStatus' });
export const ReferralStatusEnum = builder.enumType(ReferralStatus, { name: 'ReferralStatus' });
export const TierQualificationEnum = builder.enumType(TierQualification, { name: 'TierQualification' });
export const TierWindowEnum = builder.enumType(TierWindow, { name: 'TierWindow' });
export const ApiKeyTypeEnum = builder.enumType(ApiKeyType, {
  name: 'ApiKeyType',
  description: 'full: the highest level of every scope; read_only: read of every scope; custom: per scope',
});

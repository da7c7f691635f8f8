import type { Connection } from './database.ts'
import { accounts } from './account.ts'
import { joinable } from './account/joinable.ts'
import { bans } from './ban.ts'
import { boosts } from './boost.ts'
import { messages } from './message.ts'
import { display } from './message/display.ts'
import { messageAttachments } from './message/attachment.ts'
import { pagination } from './message/pagination.ts'
import { receiving } from './room/receiving.ts'
import { memberships } from './membership.ts'
import { rooms } from './room.ts'
import { sessions } from './session.ts'
import { users } from './user.ts'
import { involvements } from './membership/involvement.ts'
import { roomDestruction } from './room/destruction.ts'
import { roomMemberships } from './room/memberships.ts'
import { closedRooms } from './rooms/closed.ts'
import { directRooms } from './rooms/direct.ts'
import { openRooms } from './rooms/open.ts'
import { sidebars } from './user/sidebar.ts'
import { searches } from './search.ts'
import { searchable } from './message/searchable.ts'
import { autocompletable } from './user/autocompletable.ts'
import { avatars } from './user/avatar.ts'
import { cacheVersions } from './cache-versions.ts'
import { blobs } from './blob.ts'
import { deactivatable } from './user/deactivatable.ts'
import { roles } from './user/role.ts'
import { roster } from './user/roster.ts'
import { logos } from './account/logo.ts'
import { variants } from './blob/variants.ts'
import { previews } from './blob/previews.ts'
import { profiles } from './user/profile.ts'
import { pushSubscriptions } from './push/subscription.ts'
import { messagePusher } from './room/message-pusher.ts'
import { bannable } from './user/bannable.ts'
import { webhooks } from './webhook.ts'
import { bots } from './user/bot.ts'
import { oidcIdentities } from './user/oidc-identity.ts'
import { emailStanding } from './user/email-standing.ts'
import { emailNotifications } from './email/notification.ts'
import { emailPreferences } from './email/preference.ts'
import { missedMessages } from './email/missed-messages.ts'
import { claimable } from './user/claimable.ts'
import { exportRows } from './export/rows.ts'
import { erasable } from './user/erasable.ts'
import { mentionIndex } from './message/mentions.ts'
import { inbox } from './user/mentions.ts'
import { savedMessages } from './saved-message.ts'
import { unreadMarks } from './membership/unread-marks.ts'

// Every model prepares its statements once per connection: the store builds one set for the
// reader and one for the writer. The models are made with `models` (the store passes the
// connection wrapped so that statements compile on first use: lazy-statements.ts); `db` is the
// connection itself, for callers that prepare their own.
export function createModels(db: Connection, models: Connection = db) {
  return {
    db,
    accounts: accounts(models),
    accountJoinCodes: joinable(models),
    bans: bans(models),
    bannable: bannable(models),
    boosts: boosts(models),
    blobs: blobs(models),
    blobVariants: variants(models),
    blobPreviews: previews(models),
    profiles: profiles(models),
    pushSubscriptions: pushSubscriptions(models),
    messagePusher: messagePusher(models),
    messageDisplay: display(models),
    messageAttachments: messageAttachments(models),
    messagePages: pagination(models),
    messages: messages(models),
    roomReceiving: receiving(models),
    memberships: memberships(models),
    rooms: rooms(models),
    sessions: sessions(models),
    avatars: avatars(models),
    sidebars: sidebars(models),
    searches: searches(models),
    searchable: searchable(models),
    autocompletable: autocompletable(models),
    users: users(models),
    closedRooms: closedRooms(models),
    directRooms: directRooms(models),
    involvements: involvements(models),
    openRooms: openRooms(models),
    roomDestruction: roomDestruction(models),
    roomMemberships: roomMemberships(models),
    cacheVersions: cacheVersions(models),
    deactivatable: deactivatable(models),
    roles: roles(models),
    roster: roster(models),
    logos: logos(models),
    webhooks: webhooks(models),
    bots: bots(models),
    oidcIdentities: oidcIdentities(models),
    emailStanding: emailStanding(models),
    emailNotifications: emailNotifications(models),
    emailPreferences: emailPreferences(models),
    missedMessages: missedMessages(models),
    claims: claimable(models),
    exportRows: exportRows(models),
    erasable: erasable(models),
    mentionIndex: mentionIndex(models),
    inbox: inbox(models),
    savedMessages: savedMessages(models),
    unreadMarks: unreadMarks(models),
  }
}

export type Models = ReturnType<typeof createModels>

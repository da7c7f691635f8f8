import type { ControllerConstructor } from '@hotwired/stimulus'
import AutoSubmitController from './auto_submit_controller.ts'
import AutocompleteController from './autocomplete_controller.ts'
import BadgeDotController from './badge_dot_controller.ts'
import BoostDeleteController from './boost_delete_controller.ts'
import ComposerController from './composer_controller.ts'
import CopyToClipboardController from './copy_to_clipboard_controller.ts'
import DropTargetController from './drop_target_controller.ts'
import DeleteConfirmationController from './delete_confirmation_controller.ts'
import EditorController from './editor_controller.ts'
import ElementRemovalController from './element_removal_controller.ts'
import FilterController from './filter_controller.ts'
import FormController from './form_controller.ts'
import LightboxController from './lightbox_controller.ts'
import LocalTimeController from './local_time_controller.ts'
import MaintainScrollController from './maintain_scroll_controller.ts'
import MessagesController from './messages_controller.ts'
import NotificationsController from './notifications_controller.ts'
import PopupController from './popup_controller.ts'
import PresenceController from './presence_controller.ts'
import PwaInstallController from './pwa_install_controller.ts'
import ReadRoomsController from './read_rooms_controller.ts'
import RefreshRoomController from './refresh_room_controller.ts'
import ReplyController from './reply_controller.ts'
import RichAutocompleteController from './rich_autocomplete_controller.ts'
import RoomsListController from './rooms_list_controller.ts'
import ScrollIntoViewController from './scroll_into_view_controller.ts'
import SkipLinkController from './skip_link_controller.ts'
import SavedMessagesController from './saved_messages_controller.ts'
import SearchResultsController from './search_results_controller.ts'
import SessionsController from './sessions_controller.ts'
import SoftKeyboardController from './soft_keyboard_controller.ts'
import SortedListController from './sorted_list_controller.ts'
import SoundController from './sound_controller.ts'
import ToggleClassController from './toggle_class_controller.ts'
import TurboFrameController from './turbo_frame_controller.ts'
import TurboStreamingController from './turbo_streaming_controller.ts'
import TypingNotificationsController from './typing_notifications_controller.ts'
import UploadPreviewController from './upload_preview_controller.ts'
import WebShareController from './web_share_controller.ts'

// Every controller, by the name the views use (data-controller="…").
export const controllers: Record<string, ControllerConstructor> = {
  'auto-submit': AutoSubmitController,
  'autocomplete': AutocompleteController,
  'badge-dot': BadgeDotController,
  'boost-delete': BoostDeleteController,
  'composer': ComposerController,
  'copy-to-clipboard': CopyToClipboardController,
  'drop-target': DropTargetController,
  'delete-confirmation': DeleteConfirmationController,
  'editor': EditorController,
  'element-removal': ElementRemovalController,
  'filter': FilterController,
  'form': FormController,
  'lightbox': LightboxController,
  'local-time': LocalTimeController,
  'maintain-scroll': MaintainScrollController,
  'messages': MessagesController,
  'notifications': NotificationsController,
  'popup': PopupController,
  'presence': PresenceController,
  'pwa-install': PwaInstallController,
  'read-rooms': ReadRoomsController,
  'refresh-room': RefreshRoomController,
  'reply': ReplyController,
  'rich-autocomplete': RichAutocompleteController,
  'rooms-list': RoomsListController,
  'scroll-into-view': ScrollIntoViewController,
  'skip-link': SkipLinkController,
  'saved-messages': SavedMessagesController,
  'search-results': SearchResultsController,
  'sessions': SessionsController,
  'soft-keyboard': SoftKeyboardController,
  'sorted-list': SortedListController,
  'sound': SoundController,
  'toggle-class': ToggleClassController,
  'turbo-frame': TurboFrameController,
  'turbo-streaming': TurboStreamingController,
  'typing-notifications': TypingNotificationsController,
  'upload-preview': UploadPreviewController,
  'web-share': WebShareController,
}

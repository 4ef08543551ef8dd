#include "taglib_shim.h"

#include <taglib/aifffile.h>
#include <taglib/aiffproperties.h>
#include <taglib/apefile.h>
#include <taglib/apeitem.h>
#include <taglib/apeproperties.h>
#include <taglib/apetag.h>
#include <taglib/asfattribute.h>
#include <taglib/asffile.h>
#include <taglib/asfpicture.h>
#include <taglib/asfproperties.h>
#include <taglib/asftag.h>
#include <taglib/attachedpictureframe.h>
#include <taglib/audioproperties.h>
#include <taglib/fileref.h>
#include <taglib/flacfile.h>
#include <taglib/flacpicture.h>
#include <taglib/flacproperties.h>
#include <taglib/id3v1tag.h>
#include <taglib/id3v2frame.h>
#include <taglib/id3v2header.h>
#include <taglib/id3v2synchdata.h>
#include <taglib/id3v2tag.h>
#include <taglib/mp4coverart.h>
#include <taglib/mp4file.h>
#include <taglib/mp4item.h>
#include <taglib/mp4properties.h>
#include <taglib/mp4tag.h>
#include <taglib/mpcfile.h>
#include <taglib/mpegfile.h>
#include <taglib/oggflacfile.h>
#include <taglib/opusfile.h>
#include <taglib/speexfile.h>
#include <taglib/textidentificationframe.h>
#include <taglib/tfilestream.h>
#include <taglib/tpropertymap.h>
#include <taglib/trueaudiofile.h>
#include <taglib/trueaudioproperties.h>
#include <taglib/vorbisfile.h>
#include <taglib/wavfile.h>
#include <taglib/wavpackfile.h>
#include <taglib/wavpackproperties.h>
#include <taglib/wavproperties.h>
#include <taglib/xiphcomment.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace TagLib;

namespace {

struct Entry {
    std::string key;
    std::string value;
    tl_source source;
};

std::string utf8(const String &text) { return text.to8Bit(true); }

/* A picture as found in some tag; chosen later by type. */
struct Candidate {
    std::string mime;
    ByteVector data;
    bool frontCover;
};

}  // namespace

struct tl_file {
    /* Owned here: a FileRef made from a stream does not delete it. */
    FileStream *stream = nullptr;
    FileRef ref;
    std::string format;
    std::vector<Entry> entries;
    bool commentsRead = false;
    std::vector<Entry> comments;
    int id3v2Version = 0;
    bool hasAudio = false;
    tl_audio_properties audio = {0, 0, 0, 0, 0};
    bool hasITunSMPB = false;
    std::string iTunSMPB;
    bool pictureLooked = false;
    bool hasPicture = false;
    std::string pictureMime;
    ByteVector pictureData;

    ~tl_file() {
        ref = FileRef();  // the File reads the stream, so it goes first
        delete stream;
    }
};

namespace {

void append(tl_file *file, const PropertyMap &map, tl_source source) {
    for (PropertyMap::ConstIterator it = map.begin(); it != map.end(); ++it) {
        const std::string key = utf8(it->first);
        for (StringList::ConstIterator value = it->second.begin(); value != it->second.end(); ++value)
            file->entries.push_back({key, utf8(*value), source});
    }
}

/* Adds `extra`'s keys that `base` lacks to `base`. */
void fillMissing(PropertyMap &base, const PropertyMap &extra) {
    for (PropertyMap::ConstIterator it = extra.begin(); it != extra.end(); ++it)
        if (!base.contains(it->first)) base.insert(it->first, it->second);
}

StringList textFrameValues(const ID3v2::Tag *tag, const char *id) {
    StringList values;
    const ID3v2::FrameList frames = tag->frameList(id);
    for (ID3v2::FrameList::ConstIterator it = frames.begin(); it != frames.end(); ++it) {
        if (const ID3v2::TextIdentificationFrame *text = dynamic_cast<const ID3v2::TextIdentificationFrame *>(*it))
            values.append(text->fieldList());
    }
    return values;
}

/* TagLib's properties of an ID3v2 tag, with genres as written and TIT1 as GROUPING. */
PropertyMap id3v2Properties(const ID3v2::Tag *tag) {
    PropertyMap map = tag->properties();
    const StringList genres = textFrameValues(tag, "TCON");
    map.erase("GENRE");
    if (!genres.isEmpty()) map.insert("GENRE", genres);

    // TagLib names TIT1 WORK (iTunes' use); ID3 and MPD call it the content group. A TXXX:WORK stays WORK.
    const StringList groups = textFrameValues(tag, "TIT1");
    if (!groups.isEmpty() && map.contains("WORK")) {
        StringList work = map["WORK"];
        for (StringList::ConstIterator it = groups.begin(); it != groups.end(); ++it) {
            StringList::Iterator found = work.find(*it);
            if (found != work.end()) work.erase(found);
        }
        map.erase("WORK");
        if (!work.isEmpty()) map.insert("WORK", work);
        StringList grouping = map.contains("GROUPING") ? map["GROUPING"] : StringList();
        grouping.append(groups);
        map.replace("GROUPING", grouping);
    }
    return map;
}

/* ID3v1's fields as properties, the genre as its number so every genre name comes from one list. */
PropertyMap id3v1Properties(const ID3v1::Tag *tag) {
    PropertyMap map = tag->properties();
    map.erase("GENRE");
    if (tag->genreNumber() < 255) map.insert("GENRE", StringList(String::number(int(tag->genreNumber()))));
    return map;
}

bool hasValue(const PropertyMap &map, const String &key) {
    PropertyMap::ConstIterator found = map.find(key);
    if (found == map.end()) return false;
    for (StringList::ConstIterator it = found->second.begin(); it != found->second.end(); ++it)
        if (!it->isEmpty()) return true;
    return false;
}

/* Keys whose values are all empty go; TagLib keeps a frame it could not decode as "". */
void dropEmpty(PropertyMap &map) {
    StringList empty;
    for (PropertyMap::ConstIterator it = map.begin(); it != map.end(); ++it)
        if (!hasValue(map, it->first)) empty.append(it->first);
    for (StringList::ConstIterator it = empty.begin(); it != empty.end(); ++it) map.erase(*it);
}

void appendUTF16(ByteVector &out, unsigned int unit) {
    out.append(char(unit >> 8));
    out.append(char(unit & 0xFF));
}

/* UTF-8 with each invalid byte read as U+FFFD; TagLib drops the whole string instead. */
String lenientUTF8(const ByteVector &bytes) {
    ByteVector utf16;
    const unsigned int n = bytes.size();
    unsigned int i = 0;
    while (i < n) {
        const unsigned char lead = static_cast<unsigned char>(bytes[i]);
        unsigned int length = 0, point = 0;
        if (lead < 0x80) { length = 1; point = lead; }
        else if (lead >= 0xC2 && lead < 0xE0) { length = 2; point = lead & 0x1F; }
        else if (lead >= 0xE0 && lead < 0xF0) { length = 3; point = lead & 0x0F; }
        else if (lead >= 0xF0 && lead < 0xF5) { length = 4; point = lead & 0x07; }
        bool valid = length > 0 && i + length <= n;
        for (unsigned int k = 1; valid && k < length; k++) {
            const unsigned char next = static_cast<unsigned char>(bytes[i + k]);
            valid = (next & 0xC0) == 0x80;
            point = (point << 6) | (next & 0x3F);
        }
        const unsigned int shortest[] = {0, 0, 0x80, 0x800, 0x10000};
        if (!valid || point < shortest[length] || point > 0x10FFFF || (point >= 0xD800 && point < 0xE000)) {
            appendUTF16(utf16, 0xFFFD);
            i++;
            continue;
        }
        if (point > 0xFFFF) {
            appendUTF16(utf16, 0xD800 + ((point - 0x10000) >> 10));
            appendUTF16(utf16, 0xDC00 + ((point - 0x10000) & 0x3FF));
        } else {
            appendUTF16(utf16, point);
        }
        i += length;
    }
    return String(utf16, String::UTF16BE);
}

/* The strings of a text frame's body: the encoding byte, then NUL-separated values. UTF-16 without a
 * byte-order mark (old ffmpeg writes it) is read in the byte order its zero bytes show, little-endian
 * when they show none. */
StringList decodeTextFrame(const ByteVector &body) {
    StringList values;
    if (body.isEmpty()) return values;
    const char encoding = body[0];
    const ByteVector text = body.mid(1);
    if (encoding == 0 || encoding == 3) {
        const ByteVectorList parts = ByteVectorList::split(text, ByteVector(1, '\0'));
        for (ByteVectorList::ConstIterator it = parts.begin(); it != parts.end(); ++it)
            if (!it->isEmpty()) values.append(encoding == 0 ? String(*it, String::Latin1) : lenientUTF8(*it));
        return values;
    }
    if (encoding != 1 && encoding != 2) return values;
    const ByteVectorList parts = ByteVectorList::split(text, ByteVector(2, '\0'), 2);
    for (ByteVectorList::ConstIterator it = parts.begin(); it != parts.end(); ++it) {
        ByteVector part = *it;
        if (part.size() % 2) part.resize(part.size() - 1);
        if (part.isEmpty()) continue;
        String::Type type = String::UTF16BE;
        if (encoding == 1) {
            const unsigned char first = part[0], second = part[1];
            if ((first == 0xFF && second == 0xFE) || (first == 0xFE && second == 0xFF)) {
                type = String::UTF16;
            } else {
                unsigned int zerosFirst = 0, zerosSecond = 0;
                for (unsigned int i = 0; i + 1 < part.size(); i += 2) {
                    if (part[i] == 0) zerosFirst++;
                    if (part[i + 1] == 0) zerosSecond++;
                }
                type = zerosFirst > zerosSecond ? String::UTF16BE : String::UTF16LE;
            }
        }
        const String value(part, type);
        if (!value.isEmpty()) values.append(value);
    }
    return values;
}

/* The property name TagLib gives a text frame (its own table is not public), TIT1 and TCON as above. */
String textFrameKey(const ByteVector &id) {
    if (id == "TIT1") return "GROUPING";
    if (id == "TCON") return "GENRE";
    if (id == "TIPL" || id == "TMCL") return String();
    ID3v2::TextIdentificationFrame frame(id, String::UTF8);
    frame.setText("-");
    const PropertyMap map = frame.asProperties();
    return map.isEmpty() ? String() : map.begin()->first;
}

/* TagLib 1.13 loses text of some real-world ID3v2 tags: UTF-16 without a byte-order mark and UTF-8
 * with an invalid byte come out empty, a frame of size 0 ends its reading of the tag, and behind an
 * extended header it stops short of the last frames. Walks the tag's frames at the start of the file and fills the text values missing
 * from `map`, reading only the headers of other frames (pictures can be megabytes). */
void recoverID3v2Text(File *file, const ID3v2::Tag *tag, PropertyMap &map) {
    const ID3v2::Header *header = tag->header();
    const unsigned int version = header->majorVersion();
    if ((version != 3 && version != 4) || header->unsynchronisation()) return;
    file->seek(0);
    const ByteVector head = file->readBlock(10);
    if (head.size() < 10 || !head.startsWith("ID3") || static_cast<unsigned char>(head[3]) != version) return;
    const long end = 10 + long(header->tagSize());
    long position = 10;
    if (header->extendedHeader()) {
        file->seek(position);
        const ByteVector size = file->readBlock(4);
        if (size.size() < 4) return;
        // v2.4 counts the size field in, v2.3 does not.
        position += version == 4 ? long(ID3v2::SynchData::toUInt(size)) : 4 + long(size.toUInt());
    }
    while (position + 10 <= end) {
        file->seek(position);
        const ByteVector frameHeader = file->readBlock(10);
        if (frameHeader.size() < 10 || frameHeader[0] == 0) break;  // padding
        const ByteVector id = frameHeader.mid(0, 4);
        for (ByteVector::ConstIterator c = id.begin(); c != id.end(); ++c)
            if (!std::isupper(static_cast<unsigned char>(*c)) && !std::isdigit(static_cast<unsigned char>(*c))) return;
        const ByteVector sizeField = frameHeader.mid(4, 4);
        const long size = long(version == 4 ? ID3v2::SynchData::toUInt(sizeField) : sizeField.toUInt());
        const unsigned char format = frameHeader[9];
        // Compressed, encrypted, unsynchronised or grouped frames are left to TagLib.
        const bool plain = version == 4 ? (format & 0x0F) == 0 : (format & 0xE0) == 0;
        const long body = position + 10;
        position = body + size;
        if (position > end) break;
        if (size < 2 || !plain || id[0] != 'T' || id == "TXXX" || id == "TDAT" || id == "TIME" || id == "TRDA") continue;
        const String key = textFrameKey(id);
        if (key.isEmpty() || hasValue(map, key)) continue;
        file->seek(body);
        const StringList values = decodeTextFrame(file->readBlock(static_cast<unsigned long>(size)));
        if (!values.isEmpty()) map.replace(key, values);
    }
}

void readMPEG(tl_file *file, MPEG::File *mpeg) {
    PropertyMap seen;
    if (mpeg->hasID3v2Tag()) {
        PropertyMap v2 = id3v2Properties(mpeg->ID3v2Tag());
        recoverID3v2Text(mpeg, mpeg->ID3v2Tag(), v2);
        dropEmpty(v2);
        if (!v2.isEmpty()) {
            seen = v2;
            file->id3v2Version = int(mpeg->ID3v2Tag()->header()->majorVersion());
            append(file, seen, TL_SOURCE_ID3V2);
        }
    }
    // TagLib answers with the first non-empty tag only; the others fill in the keys it lacks.
    if (mpeg->hasAPETag()) {
        PropertyMap ape = mpeg->APETag()->properties();
        dropEmpty(ape);
        for (PropertyMap::ConstIterator it = seen.begin(); it != seen.end(); ++it) ape.erase(it->first);
        append(file, ape, TL_SOURCE_APE);
        fillMissing(seen, ape);
    }
    if (mpeg->hasID3v1Tag()) {
        PropertyMap v1 = id3v1Properties(mpeg->ID3v1Tag());
        dropEmpty(v1);
        for (PropertyMap::ConstIterator it = seen.begin(); it != seen.end(); ++it) v1.erase(it->first);
        append(file, v1, TL_SOURCE_ID3V1);
    }
}

/* WAV and AIFF: the ID3v2 chunk when it holds anything, else TagLib's choice (RIFF INFO). */
void readWithID3v2Chunk(tl_file *file, ID3v2::Tag *tag) {
    if (tag && !tag->isEmpty()) {
        append(file, id3v2Properties(tag), TL_SOURCE_ID3V2);
        file->id3v2Version = int(tag->header()->majorVersion());
    } else {
        append(file, file->ref.file()->properties(), TL_SOURCE_OTHER);
    }
}

void readMP4(tl_file *file, MP4::File *mp4) {
    PropertyMap map = mp4->properties();
    MP4::Tag *tag = mp4->tag();
    if (tag) {
        const MP4::ItemMap &items = tag->itemMap();
        for (MP4::ItemMap::ConstIterator it = items.begin(); it != items.end(); ++it) {
            if (!it->first.startsWith("----:")) continue;
            if (it->first == "----:com.apple.iTunes:iTunSMPB") {
                const StringList values = it->second.toStringList();
                if (!values.isEmpty()) {
                    file->hasITunSMPB = true;
                    file->iTunSMPB = utf8(values.front());
                }
            }
            // "----:mean:name": the names TagLib does not translate (ReplayGain among them) go in as NAME.
            const int nameStart = it->first.find(":", 5);
            if (nameStart < 0) continue;
            const String key = it->first.substr(nameStart + 1).upper();
            if (key.isEmpty() || map.contains(key)) continue;
            const StringList values = it->second.toStringList();
            if (!values.isEmpty()) map.insert(key, values);
        }
    }
    append(file, map, TL_SOURCE_OTHER);
}

const char *formatName(File *f) {
    if (dynamic_cast<MPEG::File *>(f)) return "MPEG";
    if (dynamic_cast<FLAC::File *>(f)) return "FLAC";
    if (dynamic_cast<Ogg::Vorbis::File *>(f)) return "Ogg Vorbis";
    if (dynamic_cast<Ogg::Opus::File *>(f)) return "Ogg Opus";
    if (dynamic_cast<Ogg::FLAC::File *>(f)) return "Ogg FLAC";
    if (dynamic_cast<Ogg::Speex::File *>(f)) return "Ogg Speex";
    if (dynamic_cast<MP4::File *>(f)) return "MP4";
    if (dynamic_cast<ASF::File *>(f)) return "ASF";
    if (dynamic_cast<RIFF::WAV::File *>(f)) return "WAV";
    if (dynamic_cast<RIFF::AIFF::File *>(f)) return "AIFF";
    if (dynamic_cast<APE::File *>(f)) return "APE";
    if (dynamic_cast<WavPack::File *>(f)) return "WavPack";
    if (dynamic_cast<MPC::File *>(f)) return "Musepack";
    if (dynamic_cast<TrueAudio::File *>(f)) return "TrueAudio";
    return "other";
}

int bitsPerSample(AudioProperties *p) {
    if (FLAC::Properties *x = dynamic_cast<FLAC::Properties *>(p)) return x->bitsPerSample();
    if (MP4::Properties *x = dynamic_cast<MP4::Properties *>(p)) return x->bitsPerSample();
    if (RIFF::WAV::Properties *x = dynamic_cast<RIFF::WAV::Properties *>(p)) return x->bitsPerSample();
    if (RIFF::AIFF::Properties *x = dynamic_cast<RIFF::AIFF::Properties *>(p)) return x->bitsPerSample();
    if (APE::Properties *x = dynamic_cast<APE::Properties *>(p)) return x->bitsPerSample();
    if (WavPack::Properties *x = dynamic_cast<WavPack::Properties *>(p)) return x->bitsPerSample();
    if (TrueAudio::Properties *x = dynamic_cast<TrueAudio::Properties *>(p)) return x->bitsPerSample();
    if (ASF::Properties *x = dynamic_cast<ASF::Properties *>(p)) return x->bitsPerSample();
    return 0;
}

void readFile(tl_file *file, bool readAudio) {
    File *f = file->ref.file();
    file->format = formatName(f);
    if (MPEG::File *mpeg = dynamic_cast<MPEG::File *>(f)) {
        readMPEG(file, mpeg);
    } else if (RIFF::WAV::File *wav = dynamic_cast<RIFF::WAV::File *>(f)) {
        readWithID3v2Chunk(file, wav->hasID3v2Tag() ? wav->ID3v2Tag() : nullptr);
    } else if (RIFF::AIFF::File *aiff = dynamic_cast<RIFF::AIFF::File *>(f)) {
        readWithID3v2Chunk(file, aiff->hasID3v2Tag() ? aiff->tag() : nullptr);
    } else if (MP4::File *mp4 = dynamic_cast<MP4::File *>(f)) {
        readMP4(file, mp4);
    } else {
        append(file, f->properties(), TL_SOURCE_OTHER);
    }

    AudioProperties *audio = readAudio ? f->audioProperties() : nullptr;
    if (audio) {
        file->hasAudio = true;
        file->audio.length_ms = audio->lengthInMilliseconds();
        file->audio.sample_rate = audio->sampleRate();
        file->audio.channels = audio->channels();
        file->audio.bits_per_sample = bitsPerSample(audio);
        file->audio.bitrate_kbps = audio->bitrate();
    }
}

// MARK: Pictures

void addID3v2Pictures(std::vector<Candidate> &out, ID3v2::Tag *tag) {
    if (!tag) return;
    const ID3v2::FrameList frames = tag->frameList("APIC");
    for (ID3v2::FrameList::ConstIterator it = frames.begin(); it != frames.end(); ++it) {
        const ID3v2::AttachedPictureFrame *apic = dynamic_cast<const ID3v2::AttachedPictureFrame *>(*it);
        // "-->" marks a URL in place of the picture.
        if (!apic || apic->mimeType() == "-->") continue;
        out.push_back({utf8(apic->mimeType()), apic->picture(),
                       apic->type() == ID3v2::AttachedPictureFrame::FrontCover});
    }
}

void addFLACPictures(std::vector<Candidate> &out, const List<FLAC::Picture *> &pictures) {
    for (List<FLAC::Picture *>::ConstIterator it = pictures.begin(); it != pictures.end(); ++it)
        out.push_back({utf8((*it)->mimeType()), (*it)->data(), (*it)->type() == FLAC::Picture::FrontCover});
}

/* The common signatures, for tags that give no MIME type. */
std::string sniffMime(const ByteVector &data) {
    if (data.startsWith(ByteVector("\xFF\xD8\xFF", 3))) return "image/jpeg";
    if (data.startsWith(ByteVector("\x89PNG", 4))) return "image/png";
    if (data.startsWith("GIF8")) return "image/gif";
    if (data.startsWith("BM")) return "image/bmp";
    if (data.startsWith("RIFF") && data.mid(8, 4) == "WEBP") return "image/webp";
    return "";
}

void addMP4Pictures(std::vector<Candidate> &out, MP4::Tag *tag) {
    if (!tag || !tag->contains("covr")) return;
    const MP4::CoverArtList covers = tag->item("covr").toCoverArtList();
    for (MP4::CoverArtList::ConstIterator it = covers.begin(); it != covers.end(); ++it) {
        std::string mime;
        switch (it->format()) {
        case MP4::CoverArt::JPEG: mime = "image/jpeg"; break;
        case MP4::CoverArt::PNG: mime = "image/png"; break;
        case MP4::CoverArt::GIF: mime = "image/gif"; break;
        case MP4::CoverArt::BMP: mime = "image/bmp"; break;
        default: mime = sniffMime(it->data()); break;
        }
        // covr carries no picture type; the first counts as the cover.
        out.push_back({mime, it->data(), false});
    }
}

/* APE binary items "Cover Art (Front)" etc.: a file name, a NUL, then the picture. */
void addAPEPictures(std::vector<Candidate> &out, APE::Tag *tag) {
    if (!tag) return;
    const APE::ItemListMap &items = tag->itemListMap();
    for (APE::ItemListMap::ConstIterator it = items.begin(); it != items.end(); ++it) {
        const String key = it->first.upper();
        if (!key.startsWith("COVER ART (") || it->second.type() != APE::Item::Binary) continue;
        const ByteVector value = it->second.binaryData();
        const int nul = value.find('\0');
        if (nul < 0) continue;
        const ByteVector picture = value.mid(nul + 1);
        out.push_back({sniffMime(picture), picture, key == "COVER ART (FRONT)"});
    }
}

void addASFPictures(std::vector<Candidate> &out, ASF::Tag *tag) {
    if (!tag || !tag->contains("WM/Picture")) return;
    const ASF::AttributeList attributes = tag->attribute("WM/Picture");
    for (ASF::AttributeList::ConstIterator it = attributes.begin(); it != attributes.end(); ++it) {
        const ASF::Picture picture = it->toPicture();
        if (picture.isValid())
            out.push_back({utf8(picture.mimeType()), picture.picture(), picture.type() == ASF::Picture::FrontCover});
    }
}

std::vector<Candidate> pictures(File *f) {
    std::vector<Candidate> out;
    if (MPEG::File *mpeg = dynamic_cast<MPEG::File *>(f)) {
        if (mpeg->hasID3v2Tag()) addID3v2Pictures(out, mpeg->ID3v2Tag());
        if (mpeg->hasAPETag()) addAPEPictures(out, mpeg->APETag());
    } else if (FLAC::File *flac = dynamic_cast<FLAC::File *>(f)) {
        addFLACPictures(out, flac->pictureList());
        if (flac->hasID3v2Tag()) addID3v2Pictures(out, flac->ID3v2Tag());
    } else if (Ogg::XiphComment *xiph = dynamic_cast<Ogg::XiphComment *>(f->tag())) {
        addFLACPictures(out, xiph->pictureList());
    } else if (MP4::File *mp4 = dynamic_cast<MP4::File *>(f)) {
        addMP4Pictures(out, mp4->tag());
    } else if (ASF::File *asf = dynamic_cast<ASF::File *>(f)) {
        addASFPictures(out, asf->tag());
    } else if (RIFF::WAV::File *wav = dynamic_cast<RIFF::WAV::File *>(f)) {
        if (wav->hasID3v2Tag()) addID3v2Pictures(out, wav->ID3v2Tag());
    } else if (RIFF::AIFF::File *aiff = dynamic_cast<RIFF::AIFF::File *>(f)) {
        if (aiff->hasID3v2Tag()) addID3v2Pictures(out, aiff->tag());
    } else if (APE::File *ape = dynamic_cast<APE::File *>(f)) {
        if (ape->hasAPETag()) addAPEPictures(out, ape->APETag());
    } else if (WavPack::File *wavpack = dynamic_cast<WavPack::File *>(f)) {
        if (wavpack->hasAPETag()) addAPEPictures(out, wavpack->APETag());
    } else if (MPC::File *mpc = dynamic_cast<MPC::File *>(f)) {
        if (mpc->hasAPETag()) addAPEPictures(out, mpc->APETag());
    } else if (TrueAudio::File *tta = dynamic_cast<TrueAudio::File *>(f)) {
        if (tta->hasID3v2Tag()) addID3v2Pictures(out, tta->ID3v2Tag());
    }
    return out;
}

/* TagLib 1.13 picks MPEG by the suffix "mp3" only, and its content check misses some layer I files. */
bool hasMPEGSuffix(const char *path) {
    const char *dot = std::strrchr(path, '.');
    if (!dot || std::strchr(dot, '/')) return false;
    std::string suffix(dot + 1);
    for (size_t i = 0; i < suffix.size(); i++) suffix[i] = char(std::tolower(static_cast<unsigned char>(suffix[i])));
    return suffix == "mp3" || suffix == "mp2" || suffix == "mp1" || suffix == "mpga";
}

}  // namespace

extern "C" {

tl_file *tl_open(const char *path, int read_audio_properties, tl_status *status, int *error_number) {
    *status = TL_OK;
    *error_number = 0;
    struct stat info;
    if (stat(path, &info) != 0) {
        *status = TL_CANNOT_OPEN;
        *error_number = errno;
        return nullptr;
    }
    if (S_ISDIR(info.st_mode)) {
        *status = TL_IS_FOLDER;
        return nullptr;
    }
    // TagLib's FileStream falls back to read-only silently; opening it ourselves tells why it failed.
    if (FILE *probe = std::fopen(path, "rb")) {
        std::fclose(probe);
    } else {
        *status = TL_CANNOT_OPEN;
        *error_number = errno;
        return nullptr;
    }
    tl_file *file = nullptr;
    try {
        file = new tl_file();
        // Read-only: a read-write open would tell file watchers the file was written.
        file->stream = new FileStream(path, true);
        if (!file->stream->isOpen()) {
            delete file;
            *status = TL_CANNOT_OPEN;
            *error_number = EACCES;
            return nullptr;
        }
        if (hasMPEGSuffix(path)) {
            file->ref = FileRef(new MPEG::File(file->stream, ID3v2::FrameFactory::instance(),
                                               read_audio_properties != 0, AudioProperties::Average));
        } else {
            file->ref = FileRef(file->stream, read_audio_properties != 0, AudioProperties::Average);
        }
        if (file->ref.isNull() || !file->ref.file()->isValid()) {
            delete file;
            *status = TL_UNKNOWN_FORMAT;
            return nullptr;
        }
        readFile(file, read_audio_properties != 0);
        return file;
    } catch (...) {
        delete file;
        *status = TL_FAILED;
        return nullptr;
    }
}

void tl_close(tl_file *file) {
    try {
        delete file;
    } catch (...) {
    }
}

const char *tl_format(const tl_file *file) { return file->format.c_str(); }

/* MPD's TXXX descriptions it reads as MusicBrainz tags rather than as comments. */
static bool isMusicBrainzDescription(const String &description) {
    static const char *const names[] = {"MusicBrainz Artist Id", "MusicBrainz Album Id",
                                        "MusicBrainz Album Artist Id", "MusicBrainz Track Id",
                                        "MusicBrainz Release Track Id", "MusicBrainz Work Id"};
    for (const char *name : names)
        if (description.upper() == String(name).upper()) return true;
    return false;
}

size_t tl_comment_count(tl_file *file) {
    if (file->commentsRead) return file->comments.size();
    file->commentsRead = true;
    try {
        MPEG::File *mpeg = dynamic_cast<MPEG::File *>(file->ref.file());
        if (!mpeg) {
            file->comments = file->entries;
            return file->comments.size();
        }
        if (!mpeg->hasID3v2Tag()) return 0;
        const ID3v2::FrameList frames = mpeg->ID3v2Tag()->frameList("TXXX");
        for (ID3v2::FrameList::ConstIterator it = frames.begin(); it != frames.end(); ++it) {
            const ID3v2::UserTextIdentificationFrame *frame = dynamic_cast<const ID3v2::UserTextIdentificationFrame *>(*it);
            if (!frame) continue;
            const StringList fields = frame->fieldList();
            if (fields.size() < 2 || frame->description().isEmpty() || isMusicBrainzDescription(frame->description()))
                continue;
            file->comments.push_back(Entry{utf8(frame->description()), utf8(fields[1]), TL_SOURCE_ID3V2});
        }
    } catch (...) {
        file->comments.clear();
    }
    return file->comments.size();
}

const char *tl_comment_key(const tl_file *file, size_t index) { return file->comments[index].key.c_str(); }

const char *tl_comment_value(const tl_file *file, size_t index) { return file->comments[index].value.c_str(); }

size_t tl_property_count(const tl_file *file) { return file->entries.size(); }

const char *tl_property_key(const tl_file *file, size_t index) { return file->entries[index].key.c_str(); }

const char *tl_property_value(const tl_file *file, size_t index) { return file->entries[index].value.c_str(); }

tl_source tl_property_source(const tl_file *file, size_t index) { return file->entries[index].source; }

int tl_id3v2_version(const tl_file *file) { return file->id3v2Version; }

int tl_audio(const tl_file *file, tl_audio_properties *out) {
    if (!file->hasAudio) return 0;
    *out = file->audio;
    return 1;
}

const char *tl_mp4_itunsmpb(const tl_file *file) { return file->hasITunSMPB ? file->iTunSMPB.c_str() : nullptr; }

int tl_picture(tl_file *file, const char **mime_type, const unsigned char **data, size_t *size) {
    try {
        if (!file->pictureLooked) {
            file->pictureLooked = true;
            std::vector<Candidate> found = pictures(file->ref.file());
            const Candidate *chosen = nullptr;
            for (size_t i = 0; i < found.size(); i++) {
                if (found[i].data.isEmpty()) continue;
                if (!chosen) chosen = &found[i];
                if (found[i].frontCover) {
                    chosen = &found[i];
                    break;
                }
            }
            if (chosen) {
                file->hasPicture = true;
                file->pictureMime = chosen->mime;
                file->pictureData = chosen->data;
            }
        }
    } catch (...) {
        file->hasPicture = false;
    }
    if (!file->hasPicture) return 0;
    *mime_type = file->pictureMime.c_str();
    *data = reinterpret_cast<const unsigned char *>(file->pictureData.data());
    *size = file->pictureData.size();
    return 1;
}

}  // extern "C"
